"""HistoScope for Dask: exact counts of Dask arrays and of folders of images, on the local
scheduler or a ``distributed`` cluster alike.

    >>> import dask.array as da, histoscope.dask
    >>> x = da.random.randint(0, 1000, size=10**8, chunks=10**7)
    >>> histoscope.dask.bincount(x, minlength=1000).compute()

Each chunk is counted by the engine on the worker that holds it (the task depends on the chunk
alone, so the scheduler runs it there); the partial counts are summed exactly, in int64, by a
tree reduction (``split_every`` partials per step). Images are counted by ``histoscope-cli
batch`` itself on the workers, one shard each, so a cluster run gives the CLI's own records.
"""
import builtins
import json
import operator
import os
import shutil
import subprocess

import numpy as np

from . import _config
from ._counting import _bins_argument, _edges, _minlength_argument, _range_argument

SCHEMA = "histoscope.histogram/3"


def _dask():
    try:
        import dask
        import dask.array
        import dask.bag
    except ImportError:
        raise ImportError("histoscope.dask needs Dask (Debian: python3-dask; pip: dask[array,bag])") from None
    return dask


def _host(counts):
    """A chunk's counts as a NumPy array (CuPy-backed chunks count on their device)."""
    return counts.get() if hasattr(counts, "get") else np.asarray(counts)


def _tree(dask, parts, combine, split_every):
    if split_every < 2:
        raise ValueError("split_every must be at least 2")
    while len(parts) > 1:
        parts = [dask.delayed(combine, pure=True)(*parts[i:i + split_every]) for i in range(0, len(parts), split_every)]
    return parts[0]


# ---- bincount ---------------------------------------------------------------------------------

def _bincount_chunk(block, minlength, strategy):
    from . import bincount
    return _host(bincount(block, minlength, strategy=strategy))


def _add_counts(*parts):
    out = np.zeros(max(p.size for p in parts), np.int64)
    for p in parts:
        out[:p.size] += p
    return out


def bincount(darr, minlength=0, *, split_every=8, strategy="auto"):
    """``histoscope.bincount`` of a 1-D Dask array: a Dask array of int64 counts (its length,
    ``max(x.max() + 1, minlength)``, is known once computed). Exact: each chunk's counts come
    from the engine, and their sum is integer arithmetic."""
    dask = _dask()
    import dask.array as da
    darr = da.asarray(darr)
    if darr.ndim != 1:
        raise ValueError(f"bincount takes a 1-D array, not {darr.ndim}-D")
    if darr.dtype.kind not in "biu":
        raise TypeError(f"bincount counts integers, not {darr.dtype}")
    minlength = _minlength_argument(minlength)
    parts = [dask.delayed(_bincount_chunk, pure=True)(block, minlength, strategy)
             for block in darr.to_delayed().ravel()]
    if not parts:
        parts = [dask.delayed(np.zeros)(minlength, np.int64)]
    total = _tree(dask, parts, _add_counts, split_every)
    return da.from_delayed(total, shape=(np.nan,), dtype=np.int64)


# ---- histogram --------------------------------------------------------------------------------

def _histogram_chunk(block, bins, range, strategy):
    from . import histogram
    h = histogram(block, bins, range, strategy=strategy)
    return _host(h.counts), np.array([h.below, h.above, h.nan], np.int64)


def _add_histograms(*parts):
    return sum(p[0] for p in parts), sum(p[1] for p in parts)


class DaskHistogram(tuple):
    """``(counts, edges)`` as ``dask.array.histogram`` returns them (counts a Dask array, edges
    NumPy's own for the data's type and the range); ``outside`` is a Delayed dict of the exact
    ``below``, ``above`` and ``nan`` counts."""

    def __new__(cls, counts, edges, outside):
        self = super().__new__(cls, (counts, edges))
        self.outside = outside
        return self


def _outside_dict(part):
    below, above, nan = (int(v) for v in part[1])
    return {"below": below, "above": above, "nan": nan}


def histogram(darr, bins, range, *, split_every=8, strategy="auto"):
    """``histoscope.histogram`` of a Dask array (any shape; flattened) over ``bins`` equal bins
    of ``range`` = (lo, hi). The range is required, as dask.array.histogram's: every chunk
    counts into the same bins, and the counts add up exactly (for integer data, NumPy's counts
    of the whole array)."""
    dask = _dask()
    import dask.array as da
    darr = da.asarray(darr)
    if range is None:
        raise ValueError("histoscope.dask.histogram needs range=(lo, hi): every chunk counts into the same bins")
    nbins = _bins_argument(bins)
    dtype = np.dtype(np.uint8) if darr.dtype.kind == "b" else darr.dtype
    if dtype.kind not in "iuf":
        raise TypeError(f"histogram counts integers, bool and floats, not {darr.dtype}")
    range = _range_argument(range)
    edges = _edges(dtype, nbins, *range)
    parts = [dask.delayed(_histogram_chunk, pure=True)(block, nbins, tuple(range), strategy)
             for block in darr.to_delayed().ravel()]
    total = _tree(dask, parts, _add_histograms, split_every)
    counts = da.from_delayed(dask.delayed(operator.getitem, pure=True)(total, 0), shape=(nbins,), dtype=np.int64)
    return DaskHistogram(counts, edges, dask.delayed(_outside_dict, pure=True)(total))


# ---- image_histograms -------------------------------------------------------------------------

def cli_path():
    """The histoscope-cli that counts images: $HISTOSCOPE_CLI, else the one this package was
    built or installed with, else the one on PATH."""
    env = os.environ.get("HISTOSCOPE_CLI")
    if env:
        return env
    if _config.CLI:
        path = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), _config.CLI))
        if os.access(path, os.X_OK):
            return path
    found = shutil.which("histoscope-cli")
    if found:
        return found
    raise RuntimeError("histoscope-cli was not found (set HISTOSCOPE_CLI, or install HistoScope with its CLI)")


def _failures(stderr):
    """The files a batch listed as failed, each with its error line, from the CLI's stderr:
    an `error: MESSAGE` line per failure, in order, then `failed:` and the paths."""
    lines = stderr.splitlines()
    errors = [line[len("error: "):] for line in lines if line.startswith("error: ")]
    paths = []
    if "failed:" in lines:
        for line in lines[lines.index("failed:") + 1:]:
            if not line.startswith("  "):
                break
            paths.append(line[2:])
    out = []
    for i, path in enumerate(paths):
        out.append({"schema": SCHEMA, "record": "failed", "file": path,
                    "error": errors[i] if len(errors) == len(paths) else stderr.strip()})
    return out


def _batch_shard(paths, index, shards, args):
    cli = cli_path()
    command = [cli, "batch", "--format", "jsonl", *args]
    if shards > 1:
        command += ["--shard", f"{index}/{shards}"]
    command += ["--", *paths] if any(p.startswith("-") for p in paths) else list(paths)
    run = subprocess.run(command, capture_output=True)
    stderr = run.stderr.decode("utf-8", "replace")
    records = [json.loads(line) for line in run.stdout.decode("utf-8", "surrogateescape").splitlines() if line.strip()]
    if run.returncode not in (0, 1) or not records or records[-1].get("record") != "summary":
        raise RuntimeError(f"histoscope-cli batch (shard {index}/{shards}) exited with {run.returncode}: {stderr.strip()}")
    return records + _failures(stderr)


def _cli_args(bins, range, channels, strategy, cpu, jobs, per_frame, recursive, strict, extra_args):
    args = []
    if bins is not None:
        args += ["--bins", str(int(bins))]
    if range is not None:
        lo, hi = range
        args += ["--range", f"{float(lo)!r}:{float(hi)!r}"]
    if channels is not None:
        args += ["--channels", channels if isinstance(channels, str) else ",".join(channels)]
    if strategy is not None:
        args += ["--strategy", strategy]
    if cpu:
        args.append("--cpu")
    if jobs is not None:
        args += ["-j", str(int(jobs))]
    if per_frame:
        args.append("--per-frame")
    if recursive:
        args.append("--recursive")
    if strict:
        args.append("--strict")
    return args + list(extra_args)


def image_histograms(paths, *, shards=None, bins=None, range=None, channels=None, strategy=None, cpu=False,
                     jobs=None, per_frame=False, recursive=False, strict=False, extra_args=()):
    """Histograms of image (and video, .npy, raw) files and folders, counted on the workers by
    ``histoscope-cli batch``: a dask.bag of its records (docs/SCHEMA.md), one partition per
    shard (``--shard I/N`` of the sorted inputs, so the shards together are the whole run).

    The bag holds each shard's histogram records and its summary record, as the CLI writes
    them, plus one ``{"record": "failed", "file", "error"}`` record per file the CLI could not
    count: a bad file is a failed record, never a lost one. ``write_jsonl`` writes the records
    as one CLI output (one summary), which ``histoscope-cli merge`` reads.

    ``shards``: the number of tasks (default: one per path given, at least 8 when a folder is
    given). ``bins``, ``range``, ``channels`` (``"R,G,B"`` or a list), ``strategy``, ``cpu``,
    ``jobs``, ``per_frame``, ``recursive``, ``strict`` are the CLI's options of the same names;
    ``extra_args`` any others (e.g. ``["--raw-shape", "640x480"]``). The paths must be
    readable on the workers.
    """
    dask = _dask()
    import dask.bag as db
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    paths = [os.fsdecode(p) for p in paths]
    if not paths:
        raise ValueError("no path to count")
    if shards is None:
        shards = len(paths) if all(os.path.isfile(p) for p in paths) else max(8, len(paths))
    shards = int(shards)
    if shards < 1:
        raise ValueError("shards must be at least 1")
    args = _cli_args(bins, range, channels, strategy, cpu, jobs, per_frame, recursive, strict, extra_args)
    tasks = [dask.delayed(_batch_shard, pure=False)(paths, i, shards, args) for i in builtins.range(shards)]
    return db.from_delayed(tasks)



def summary(records):
    """The CLI's summary record of a whole run, from the records of image_histograms: the
    shards' summaries added up (``failed`` counts the failed records)."""
    out = {"schema": SCHEMA, "record": "summary", "records": 0, "files": 0, "failed": 0, "frames": 0}
    for r in records:
        if r.get("record") == "summary":
            for key in ("records", "files", "failed", "frames"):
                out[key] += int(r.get(key, 0))
    return out


def write_jsonl(records, path):
    """Writes the histogram records as one ``histoscope-cli batch`` output (JSON Lines) ending
    with one summary, for ``histoscope-cli merge``; the failed records are counted in the
    summary's ``failed``, as the CLI counts them. Returns the summary."""
    records = list(records)
    total = summary(records)
    # ASCII JSON: a name's bytes that are not UTF-8 stay \udc80-\udcff escapes, as the CLI writes them.
    with open(path, "w", encoding="ascii") as f:
        for r in records:
            if r.get("record") == "histogram":
                f.write(json.dumps(r, separators=(",", ":")) + "\n")
        f.write(json.dumps(total, separators=(",", ":")) + "\n")
    return total
