"""One reader shared by many threads, closed by another while they read.

Reads release the GIL; each holds its own reference to the native source, so
a concurrent close() can only make later calls raise the closed-reader
error: never a crash, and never wrong values.
"""
import itertools
import threading
import time

import numpy as np
import pytest

import ztensor
from _waits import EVENT_SECONDS

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


def _run_readers(reader, data, close=False):
    """THREADS threads read `data`'s objects from `reader`: ROUNDS reads each;
    with `close`, this thread closes the reader once every thread has read
    once, and each thread reads on until it meets the closed-reader error
    (bounded in time), so the close lands while they read however the
    threads are scheduled."""
    wrong, closed_errors, other = [], [], []
    read_once = threading.Barrier(THREADS + 1)
    deadline = time.monotonic() + EVENT_SECONDS

    def work(t):
        for i in itertools.count() if close else range(ROUNDS):
            if i == 1:
                read_once.wait()
            if time.monotonic() > deadline:
                return  # the close never reached this thread: counted below
            name = list(data)[(t + i) % 3]
            try:
                got = reader.read(name)
            except ztensor.ZTensorError as e:
                if "closed" in str(e):
                    closed_errors.append(e)
                    return
                other.append(e)
                continue
            if not np.array_equal(got, data[name]):
                wrong.append(name)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(THREADS)]
    for th in threads:
        th.start()
    read_once.wait(timeout=EVENT_SECONDS)
    if close:
        reader.close()
    for th in threads:
        th.join(timeout=EVENT_SECONDS)
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
    wrong, closed_errors, other = _run_readers(r, data, close=True)
    assert wrong == [] and other == []
    assert len(closed_errors) == THREADS  # each thread read on until the close reached it
    assert r.closed
    # Every read after the close is refused with the closed-reader error.
    with pytest.raises(ztensor.ZTensorError, match="closed"):
        r.read("raw")
