# Type stubs of the histoscope package (the functions are in histoscope/_counting.py).
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

__version__: str

ArrayLike = Any  # NumPy array, buffer, __dlpack__ object, torch.Tensor, cupy.ndarray
Stream = Any     # torch.cuda.Stream, cupy.cuda.Stream, or a cudaStream_t as an int

class Histogram(Tuple[Any, Any]):
    below: int
    above: int
    nan: int
    strategy: str
    @property
    def counts(self) -> Any: ...
    @property
    def edges(self) -> Any: ...
    @property
    def outside(self) -> int: ...

class ChannelResult:
    channel: int
    counts: np.ndarray
    below: int
    above: int
    nan: int
    min: Optional[float]
    max: Optional[float]
    statistics: Dict[str, Any]

class ImageHistogram:
    channels: List[ChannelResult]
    counts: np.ndarray
    edges: np.ndarray
    lo: float
    hi: float
    bins: int
    binning: str
    type: str
    strategy: str
    reason: str
    timings: Dict[str, float]

class Histogram2D:
    counts: np.ndarray
    slots: np.ndarray
    x_edges: np.ndarray
    y_edges: np.ndarray
    x_quantity: str
    y_quantity: str
    x_channel: int
    y_channel: int
    outside_x: Tuple[int, int, int]
    outside_y: Tuple[int, int, int]
    channel: Optional[int]
    strategy: str
    timings: Dict[str, float]

def bincount(x: ArrayLike, minlength: int = 0, *, strategy: str = "auto", stream: Stream = None) -> Any: ...
def histogram(a: ArrayLike, bins: int = 10, range: Optional[Tuple[float, float]] = None, *, strategy: str = "auto",
              strict: bool = False, stream: Stream = None) -> Histogram: ...
def histogram2d(x: ArrayLike, y: ArrayLike, bins: Union[int, Tuple[int, int]] = 10,
                range: Optional[Sequence[Optional[Tuple[float, float]]]] = None, *, strategy: str = "auto",
                stream: Stream = None) -> Tuple[Any, Any, Any]: ...
def image_histogram(img: ArrayLike, bins: int = 256, range: Optional[Tuple[float, float]] = None,
                    channels: Optional[Union[int, Sequence[int]]] = None, *, bit_depth: Optional[int] = None,
                    strategy: str = "auto", stream: Stream = None) -> ImageHistogram: ...
def parade(img: ArrayLike, channels: Optional[Union[int, Sequence[int]]] = None, *, column_bins: int = 0,
           strategy: str = "auto", stream: Stream = None) -> List[Histogram2D]: ...
def waveform(img: ArrayLike, *, standard: str = "bt709", rgb: Sequence[int] = (0, 1, 2), column_bins: int = 0,
             strategy: str = "auto", stream: Stream = None) -> Histogram2D: ...
def vectorscope(img: ArrayLike, *, standard: str = "bt709", rgb: Sequence[int] = (0, 1, 2), bins: int = 0,
                strategy: str = "auto", stream: Stream = None) -> Histogram2D: ...
def strategies() -> List[Dict[str, Any]]: ...
def device(index: int = 0) -> Dict[str, Any]: ...
