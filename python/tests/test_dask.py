"""histoscope.dask on a real distributed.LocalCluster of 2 worker processes: a 1 GiB memory-mapped
array of Zipf keys and a folder of generated photos, each checked exactly against NumPy, and the
photos' records against histoscope-cli's own run of the same folder."""
import json
import logging
import os
import subprocess
import warnings

import numpy as np
import pytest

from conftest import write_png, zipf_keys

pytestmark = pytest.mark.dask
dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")
import dask.array as da  # noqa: E402

import histoscope  # noqa: E402
import histoscope.dask as hd  # noqa: E402


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                       silence_logs=logging.ERROR)
    with distributed.Client(cluster) as c:
        c.wait_for_workers(2)
        yield c
    cluster.close()


def _load(path, dtype, start, count):
    # Read on the worker: the chunk's task opens the file there (no 1 GiB in the graph).
    return np.memmap(path, dtype=dtype, mode="r", offset=start * np.dtype(dtype).itemsize, shape=(count,))


def memmapped(path, dtype, n, chunk):
    blocks = [da.from_delayed(dask.delayed(_load, pure=True)(str(path), dtype, s, min(chunk, n - s)),
                              shape=(min(chunk, n - s),), dtype=dtype) for s in range(0, n, chunk)]
    return da.concatenate(blocks)


def workers_that_ran(client, prefix):
    return {t["worker"] for t in client.get_task_stream() if t["key"].startswith(prefix)}


def test_bincount_of_a_gib_of_zipf_keys(client, rng, tmp_path):
    values = 1 << 20
    n = 1 << 28  # int32: 1 GiB
    part = 1 << 22
    base = zipf_keys(rng, part, values).astype(np.int32)
    step = int(rng.integers(1, values)) | 1
    path = tmp_path / "keys.i32"
    keys = np.empty(part, np.int32)
    with open(path, "wb") as f:
        for t in range(n // part):  # the same Zipf law, its ranks moved by t * step
            np.add(base, t * step, out=keys)
            np.bitwise_and(keys, values - 1, out=keys)
            f.write(keys.tobytes())
    try:
        check_gib(client, path, n, values)
    finally:
        path.unlink()  # pytest keeps the temporary folders of its last runs: not a GiB each


def check_gib(client, path, n, values):
    x = memmapped(path, np.int32, n, 1 << 25)
    with distributed.get_task_stream(client):
        counts = client.compute(hd.bincount(x, minlength=values)).result()
        ran_on = workers_that_ran(client, "_bincount_chunk")
    keys = np.memmap(path, dtype=np.int32, mode="r")
    reference = np.zeros(values, np.int64)
    for s in range(0, n, 1 << 26):
        reference += np.bincount(keys[s:s + (1 << 26)], minlength=values)
    assert counts.dtype == np.int64
    np.testing.assert_array_equal(counts, reference)
    assert len(ran_on) == 2, "both workers counted chunks"
    # The same graph on the local scheduler gives the same counts.
    small = x[: 1 << 22]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dask's note that a distributed client exists too
        local = hd.bincount(small).compute(scheduler="threads")
    np.testing.assert_array_equal(local, np.bincount(keys[: 1 << 22]))


@pytest.mark.parametrize("dtype", [np.uint8, np.int32, np.int64, np.float32], ids=lambda d: np.dtype(d).name)
def test_histogram_of_a_dask_array(client, rng, dtype):
    if np.dtype(dtype).kind == "f":
        data = rng.standard_normal(3_000_000).astype(dtype)
        data[rng.choice(data.size, 5, replace=False)] = np.nan
        r = (-2.0, 2.0)
        bins = 64
        ref_counts, ref_edges = histoscope.histogram(data, bins, r)  # the engine's float rule, one process
    else:
        data = zipf_keys(rng, 3_000_000, 200).astype(dtype)
        r = (0.5, 150.25)
        bins = 13
        ref_counts, ref_edges = np.histogram(data, bins, r)
    x = da.from_array(data, chunks=400_000)
    result = hd.histogram(x, bins, r)
    counts, edges = result
    np.testing.assert_array_equal(client.compute(counts).result(), ref_counts)
    np.testing.assert_array_equal(edges, ref_edges)
    outside = client.compute(result.outside).result()
    v = data[~np.isnan(data)] if np.dtype(dtype).kind == "f" else data
    assert outside["nan"] == data.size - v.size
    assert outside["below"] + outside["above"] == int((v < r[0]).sum() + (v > r[1]).sum())
    with pytest.raises(ValueError, match="range"):
        hd.histogram(x, bins, None)


def photo(rng, h, w, gray16=False):
    """A synthetic photo: a lit gradient, texture and noise, fresh each run."""
    yy, xx = np.mgrid[0:h, 0:w]
    light = rng.uniform(0.2, 1.0) * (xx / w) + rng.uniform(0, 0.5) * (yy / h)
    if gray16:
        v = light * 40000 + rng.normal(0, 3000, (h, w))
        return np.clip(v, 0, 65535).astype(np.uint16)
    tint = rng.uniform(0.3, 1.0, 3)
    v = light[..., None] * tint * 230 + rng.normal(0, 12, (h, w, 3))
    return np.clip(v, 0, 255).astype(np.uint8)


@pytest.mark.skipif(not os.environ.get("HISTOSCOPE_CLI") and not hd._config.CLI, reason="histoscope-cli is not built")
def test_a_folder_of_photos(client, rng, tmp_path):
    folder = tmp_path / "photos"
    folder.mkdir()
    expected = {}
    for i in range(10):
        h, w = (int(v) for v in rng.integers(60, 240, 2))
        img = photo(rng, h, w, gray16=i >= 8)
        path = folder / f"photo{i:02d}.png"
        write_png(path, img)
        if img.ndim == 3:
            for c, name in enumerate("RGB"):
                expected[(str(path), name)] = np.bincount(img[..., c].ravel(), minlength=256)
        else:
            expected[(str(path), "gray")] = np.bincount((img >> 8).ravel(), minlength=256)
    broken = folder / "broken.png"
    broken.write_bytes(b"\x89PNG\r\n\x1a\n" + os.urandom(64))  # a PNG signature and noise
    (folder / "notes.txt").write_text("not an image")

    records = hd.image_histograms([str(folder)], shards=4).compute()
    histograms = [r for r in records if r["record"] == "histogram"]
    failed = [r for r in records if r["record"] == "failed"]
    assert {(r["file"], r["channel"]) for r in histograms} == set(expected)
    for r in histograms:
        np.testing.assert_array_equal(r["counts"], expected[(r["file"], r["channel"])])
    assert [f["file"] for f in failed] == [str(broken)] and str(broken) in failed[0]["error"]
    total = hd.summary(records)
    assert (total["records"], total["files"], total["failed"]) == (len(expected), 10, 1)

    # The CLI's own run of the folder: the same records; merged, the same totals.
    cli = hd.cli_path()
    direct = tmp_path / "direct.jsonl"
    run = subprocess.run([cli, "batch", str(folder), "-o", str(direct)], capture_output=True, text=True)
    assert run.returncode == 1, run.stderr  # the broken file
    lines = [json.loads(line) for line in direct.read_text().splitlines()]
    key = lambda r: (r["file"], r["channel"])  # noqa: E731
    assert sorted((r for r in lines if r["record"] == "histogram"), key=key) == sorted(histograms, key=key)
    assert lines[-1] == total
    ours = tmp_path / "cluster.jsonl"
    assert hd.write_jsonl(records, ours) == total
    merged = [subprocess.run([cli, "merge", str(p)], capture_output=True, text=True, check=True).stdout for p in (ours, direct)]
    assert merged[0] == merged[1]
