"""Bulk loads (ztensor.torch / ztensor.numpy load_file, load_model,
safe_open.get_tensors) fetch and decode many components at once in the core
(zt::read_components): the results equal one-at-a-time reads for every
encoding and thread count, a corrupt component fails the whole load with its
own code, and the reads really run side by side (seen at a pause point,
never timed)."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import ztensor  # noqa: E402
import ztensor.numpy as zt_numpy  # noqa: E402
import ztensor.torch as zt_torch  # noqa: E402
from _pause import Pause  # noqa: E402
from _servers import Nginx  # noqa: E402
from _waits import EVENT_SECONDS  # noqa: E402
from ztensor._read_ahead import TENSORS_PER_THREAD  # noqa: E402

ENCODINGS = [None, "zstd", "z4ai"]
THREADS = [1, 3, 0]
# Enough tensors that several workers always have one to take.
TENSORS = 12


def _state_dict(seed=0):
    g = torch.Generator().manual_seed(seed)
    sd = {}
    for i in range(TENSORS):
        rows = 16 + 8 * i  # different sizes, so the largest-first order differs from file order
        sd[f"layer{i}.bf16"] = torch.randn((rows, 64), generator=g).to(torch.bfloat16)
    sd["f32"] = torch.randn((33, 7), generator=g)
    sd["i8"] = torch.randint(-100, 100, (5, 9), generator=g).to(torch.int8)
    sd["fp8"] = torch.randn((4, 4), generator=g).to(torch.float8_e4m3fn)
    sd["scalar"] = torch.tensor(3.5, dtype=torch.float16)
    sd["empty"] = torch.zeros((0, 3), dtype=torch.float32)
    return sd


def _write(path, encoding):
    zt_torch.save_file(_state_dict(), str(path), compression=encoding, checksum="sha256")
    return path


def _same(a, b):
    as_bytes = lambda t: t.reshape(-1).view(torch.uint8)  # noqa: E731
    return a.dtype == b.dtype and a.shape == b.shape and torch.equal(as_bytes(a), as_bytes(b))


def _sequential_torch(path):
    with ztensor.open(path) as r:
        return {n: r.read(n, "torch") for n in r.keys()}


@pytest.mark.parametrize("threads", THREADS)
@pytest.mark.parametrize("encoding", ENCODINGS, ids=str)
def test_torch_load_file_equals_sequential_reads(tmp_path, encoding, threads):
    path = _write(tmp_path / "m.zt", encoding)
    expected = _sequential_torch(path)
    for copy in (False, True):
        loaded = zt_torch.load_file(path, copy=copy, threads=threads)
        assert list(loaded) == list(expected)  # file order
        assert all(_same(loaded[n], expected[n]) for n in expected)
    with ztensor.safe_open(path, framework="pt", threads=threads) as f:
        got = f.get_tensors()
        assert list(got) == list(expected) and all(_same(got[n], expected[n]) for n in expected)
        for k in f.keys():  # the read-ahead's windows, in keys()' order
            assert _same(f.get_tensor(k), expected[k]), k
        for k in reversed(f.offset_keys()):  # against its order: a miss each time
            assert _same(f.get_tensor(k), expected[k]), k


@pytest.mark.parametrize("threads", THREADS)
@pytest.mark.parametrize("encoding", ENCODINGS, ids=str)
def test_numpy_load_file_equals_sequential_reads(tmp_path, encoding, threads):
    arrays = {f"a{i}": np.random.default_rng(i).standard_normal((10 + i, 5)).astype(np.float32)
              for i in range(TENSORS)}
    arrays["u16"] = np.arange(77, dtype=np.uint16)
    path = tmp_path / "m.zt"
    zt_numpy.save_file(arrays, str(path), compression=encoding)
    with ztensor.open(path) as r:
        expected = {n: r.read(n) for n in r.keys()}
    loaded = zt_numpy.load_file(path, threads=threads)
    assert list(loaded) == list(expected)
    assert all(loaded[n].dtype == expected[n].dtype and np.array_equal(loaded[n], expected[n]) for n in expected)
    with ztensor.safe_open(path, framework="np", threads=threads) as f:
        got = f.get_tensors()
        assert all(np.array_equal(got[n], expected[n]) for n in expected)
        assert all(np.array_equal(f.get_tensor(k), expected[k]) for k in f.keys())


@pytest.mark.parametrize("encoding", ENCODINGS, ids=str)
def test_load_model_and_url_loads_equal_sequential_reads(tmp_path, encoding):
    root = tmp_path / "www"
    root.mkdir()
    path = _write(root / "m.zt", encoding)
    expected = _sequential_torch(path)
    (tmp_path / "nginx-run").mkdir()
    server = Nginx(root, tmp_path / "nginx-run")
    try:
        loaded = zt_torch.load_file(server.url("m.zt"), threads=3)
    finally:
        server.stop()
    assert list(loaded) == list(expected) and all(_same(loaded[n], expected[n]) for n in expected)

    model = torch.nn.Module()
    for n, t in expected.items():
        model.register_buffer(n.replace(".", "_"), torch.empty_like(t))
    renamed = tmp_path / "renamed.zt"
    zt_torch.save_file({n.replace(".", "_"): t for n, t in expected.items()}, str(renamed), compression=encoding)
    zt_torch.load_model(model, renamed, threads=2)
    assert all(_same(getattr(model, n.replace(".", "_")), t) for n, t in expected.items())


def _corrupt_one(path, victim):
    """Overwrites the middle of `victim`'s stored bytes."""
    with ztensor.open(path) as r:
        c = r.object(victim).components["data"]
    with open(path, "r+b") as f:
        f.seek(c.offset + c.length // 2)
        f.write(b"\x55" * min(16, c.length // 4))


@pytest.mark.parametrize("checksum", ["sha256", None], ids=["digest", "no-digest"])
@pytest.mark.parametrize("encoding", ["zstd", "z4ai"])
def test_a_corrupt_component_among_many_fails_the_load_with_its_code(tmp_path, encoding, checksum):
    path = tmp_path / "m.zt"
    zt_torch.save_file(_state_dict(), str(path), compression=encoding, checksum=checksum)
    victim = "layer7.bf16"
    _corrupt_one(path, victim)
    with ztensor.open(path) as r, pytest.raises(ztensor.ZTensorError) as one:
        r.read(victim, "torch")
    for load in (lambda: zt_torch.load_file(path, threads=4), lambda: zt_numpy.load_file(path, threads=4),
                 lambda: zt_torch.load_file(path, threads=1)):
        with pytest.raises(ztensor.ZTensorError) as many:
            load()
        assert many.value.code == one.value.code, (many.value, one.value)
        assert victim in str(many.value)


def test_threads_must_be_a_count(tmp_path):
    path = _write(tmp_path / "m.zt", "zstd")
    for bad in (-1, 1.5, "2", True):
        with pytest.raises(ztensor.ZTensorError) as e:
            zt_torch.load_file(path, threads=bad)
        assert e.value.code == "invalid_argument"


# One worker stops at the pause point before its first read; the others must
# read the rest of the batch meanwhile. A load that reads one component after
# another never gets past the paused one, and its watcher reports "stuck".
PAUSED_LOAD = textwrap.dedent("""
    import sys, threading, time
    import torch, ztensor, ztensor.torch
    from ztensor import _core

    path, others, deadline_s, how = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    start = _core._batch_components_read()

    def watch():
        deadline = time.monotonic() + deadline_s
        while _core._batch_components_read() - start < others and time.monotonic() < deadline:
            time.sleep(0.005)
        done = _core._batch_components_read() - start
        print("others-read" if done >= others else f"stuck {done}", flush=True)

    threading.Thread(target=watch, daemon=True).start()
    if how == "load_file":
        loaded = ztensor.torch.load_file(path, threads=4)
    else:  # a loop over keys(): the read-ahead batches them
        with ztensor.safe_open(path, framework="pt", threads=4) as f:
            loaded = {k: f.get_tensor(k) for k in f.keys()}
    with ztensor.open(path) as r:
        same = all(torch.equal(loaded[n].view(torch.uint8), r.read(n, "torch").view(torch.uint8)) for n in r.keys())
    print("loaded", len(loaded), same, flush=True)
""")


@pytest.mark.parametrize("how", ["load_file", "safe_open"])
@pytest.mark.parametrize("encoding", ["zstd", "z4ai"])
def test_components_decode_on_several_threads(tmp_path, encoding, how):
    path = tmp_path / "m.zt"
    tensors = {f"t{i}": torch.randn((64, 64), generator=torch.Generator().manual_seed(i)).to(torch.bfloat16)
               for i in range(TENSORS)}
    zt_torch.save_file(tensors, str(path), compression=encoding)
    pause = Pause(tmp_path, "read_components:read")
    # The rest of the batch: every other tensor, or the rest of safe_open's
    # first window (TENSORS_PER_THREAD tensors for each of the 4 threads).
    others = TENSORS - 1 if how == "load_file" else TENSORS_PER_THREAD * 4 - 1
    p = subprocess.Popen([sys.executable, "-c", PAUSED_LOAD, str(path), str(others), str(EVENT_SECONDS), how],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env={**os.environ, **pause.env, "PYTHONPATH": os.pathsep.join(sys.path)})
    try:
        pause.wait(p)
        watched = p.stdout.readline().strip()  # the watcher's verdict, written while one worker is held
        pause.resume()
        out, err = p.communicate(timeout=EVENT_SECONDS)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert watched == "others-read", (watched, err)
    assert p.returncode == 0 and out.strip() == f"loaded {TENSORS} True", (out, err)
