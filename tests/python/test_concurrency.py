"""One reader shared by many threads, closed by another while they read.

Reads release the GIL; each holds its own reference to the native source, so
a concurrent close() can only make later calls raise the closed-reader
error: never a crash, and never wrong values.
"""
import threading

import numpy as np
import pytest

import ztensor

THREADS = 8
ROUNDS = 60  # bounded: a few hundred reads per test


def _write(path):
    data = {
        "raw": np.arange(65536, dtype=np.float32) * 0.5,
        "zstd": np.arange(65536, dtype=np.float32) * 0.25,
        "z4ai": np.arange(65536, dtype=np.float32) * 0.125,
    }
    with ztensor.Writer(str(path)) as w:
        for name, arr in data.items():
            compression = None if name == "raw" else name
            w.add(name, arr, compression=compression, checksum="sha256")
    return data


def _run_readers(reader, data, close_after=None):
    wrong, closed_errors, other = [], [], []
    started = threading.Barrier(THREADS + 1)

    def work(t):
        started.wait()
        for i in range(ROUNDS):
            name = list(data)[(t + i) % 3]
            try:
                got = reader.read(name)
            except ztensor.ZTensorError as e:
                (closed_errors if "closed" in str(e) else other).append(e)
                continue
            if not np.array_equal(got, data[name]):
                wrong.append(name)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(THREADS)]
    for th in threads:
        th.start()
    started.wait()
    if close_after is not None:
        close_after.wait(timeout=10)
        reader.close()
    for th in threads:
        th.join(timeout=60)
    assert not any(th.is_alive() for th in threads)
    return wrong, closed_errors, other


def test_eight_threads_read_raw_zstd_z4ai(tmp_path):
    data = _write(tmp_path / "m.zt")
    with ztensor.open(str(tmp_path / "m.zt"), verify=True) as r:
        wrong, closed_errors, other = _run_readers(r, data)
    assert wrong == [] and closed_errors == [] and other == []


def test_close_while_eight_threads_read(tmp_path):
    data = _write(tmp_path / "m.zt")
    r = ztensor.open(str(tmp_path / "m.zt"))
    soon = threading.Event()
    threading.Timer(0.01, soon.set).start()
    wrong, closed_errors, other = _run_readers(r, data, close_after=soon)
    assert wrong == [] and other == []
    assert r.closed
    # Every read after the close is refused with the closed-reader error.
    with pytest.raises(ztensor.ZTensorError, match="closed"):
        r.read("raw")
