"""Every foreign reader survives a file truncated while it is open, as .zt
does: a coded io_error, never SIGBUS. safetensors (one file and a sharded
set), .npy, .npz (stored and deflated), GGUF and ONNX with external data;
through ztensor.open (views and verify=True copies) in a child process, and
through `zt convert`, `zt compress` and ztensor.convert stopped at a pause
point between open and read (tests/python/_pause.py), so the order is
open, truncate, read, with no timing."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from _cli import ZT, needs_zt
from _pause import Pause
from _util import write_gguf

st = pytest.importorskip("safetensors.numpy")

# Big enough that halving a file cuts into the last tensor's bytes.
ROWS = 256


def arrays():
    rng = np.random.default_rng(7)
    return {f"t{i}": rng.standard_normal((ROWS, 64)).astype(np.float32) for i in range(4)}


def write_onnx(d, tensors):
    onnx = pytest.importorskip("onnx")
    from onnx import helper, numpy_helper

    inits = [numpy_helper.from_array(v, k) for k, v in tensors.items()]
    graph = helper.make_graph([], "g", [], [], initializer=inits)
    model = helper.make_model(graph)
    onnx.save_model(model, str(d / "m.onnx"), save_as_external_data=True, all_tensors_to_one_file=True,
                    location="m.data", size_threshold=0)
    return d / "m.onnx", d / "m.data"


def make(fmt, d):
    """(the path to open, the file to truncate) for one format."""
    t = arrays()
    if fmt == "safetensors":
        st.save_file(t, str(d / "m.safetensors"))
        return d / "m.safetensors", d / "m.safetensors"
    if fmt == "sharded safetensors":
        names = list(t)
        wm = {}
        for i, part in enumerate([names[:2], names[2:]], 1):
            f = f"m-0000{i}-of-00002.safetensors"
            st.save_file({k: t[k] for k in part}, str(d / f))
            wm.update({k: f for k in part})
        (d / "m.safetensors.index.json").write_text(json.dumps({"metadata": {}, "weight_map": wm}))
        return d / "m.safetensors.index.json", d / "m-00002-of-00002.safetensors"
    if fmt == "npy":
        np.save(d / "t3.npy", t["t3"])
        return d / "t3.npy", d / "t3.npy"
    if fmt == "npy fortran":  # converted on read: read with pread
        np.save(d / "t3.npy", np.asfortranarray(t["t3"]))
        return d / "t3.npy", d / "t3.npy"
    if fmt == "npz":
        np.savez(d / "m.npz", **t)
        return d / "m.npz", d / "m.npz"
    if fmt == "npz deflated":
        np.savez_compressed(d / "m.npz", **t)
        return d / "m.npz", d / "m.npz"
    if fmt == "gguf":
        write_gguf(d / "m.gguf", t)
        return d / "m.gguf", d / "m.gguf"
    if fmt == "onnx external data":
        return write_onnx(d, t)
    raise AssertionError(fmt)


FORMATS = ["safetensors", "sharded safetensors", "npy", "npy fortran", "npz", "npz deflated", "gguf",
           "onnx external data"]


def halve(path):
    os.truncate(path, os.path.getsize(path) // 2)


READ_AFTER_TRUNCATION = textwrap.dedent("""
    import os, sys, ztensor
    path, victim, verify = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
    r = ztensor.open(path, verify=verify)
    names = r.keys()
    os.truncate(victim, os.path.getsize(victim) // 2)
    for name in names:
        try:
            r.read(name)
            print(name, "ok")
        except ztensor.ZTensorError as e:
            print(name, e.code, "truncated" in str(e))
    try:
        r.verify()
        print("verify ok")
    except ztensor.ZTensorError as e:
        print("verify", e.code, "truncated" in str(e))
""")


@pytest.mark.parametrize("verify", [False, True], ids=["views", "verify"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_reads_after_truncation_are_io_errors(tmp_path, fmt, verify):
    path, victim = make(fmt, tmp_path)
    # In a child, so that SIGBUS fails this test instead of killing pytest.
    r = subprocess.run([sys.executable, "-c", READ_AFTER_TRUNCATION, str(path), str(victim), "1" if verify else "0"],
                       capture_output=True, text=True, timeout=120,
                       env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert r.returncode == 0, (r.returncode, r.stderr)
    lines = dict(line.split(" ", 1) for line in r.stdout.splitlines())
    assert lines["t3"] == "io_error True", r.stdout  # the last tensor lies in the half that is gone
    assert all(v in ("ok", "io_error True") for v in lines.values()), r.stdout


def run_paused(tmp_path, point, argv, victim, env=None):
    """Runs argv, truncates `victim` when it reaches `point`, lets it go on."""
    pause = Pause(tmp_path, point)
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env={**os.environ, **pause.env, **(env or {})})
    pause.wait(p)
    halve(victim)
    pause.resume()
    out, err = p.communicate(timeout=300)
    return p.returncode, out, err


@needs_zt
@pytest.mark.parametrize("options", [[], ["--compress", "zstd"]], ids=["raw", "zstd"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_zt_convert_of_a_file_truncated_after_open_is_an_io_error(tmp_path, fmt, options):
    path, victim = make(fmt, tmp_path)
    out = tmp_path / "out.zt"
    code, _, err = run_paused(tmp_path, "convert:source-opened", [ZT, "convert", str(path), str(out), *options],
                              victim)
    assert code == 1 and "io_error" in err and "truncated" in err, (code, err)
    assert "temporary" not in err  # the input is blamed, not the output
    assert not out.exists()


@needs_zt
@pytest.mark.parametrize("target", ["zstn", "zt"])
def test_zt_compress_of_a_safetensors_truncated_after_open_is_an_io_error(tmp_path, target):
    path, victim = make("safetensors", tmp_path)
    out = tmp_path / f"out.{target}"
    point = "zstn:input-opened" if target == "zstn" else "convert:source-opened"
    code, _, err = run_paused(tmp_path, point, [ZT, "compress", str(path), str(out)], victim)
    assert code == 1 and "io_error" in err, (code, err)
    assert not out.exists()


CONVERT = textwrap.dedent("""
    import sys, ztensor
    try:
        ztensor.convert(sys.argv[1], sys.argv[2])
        print("ok")
    except ztensor.ZTensorError as e:
        print(e.code, "truncated" in str(e))
""")


@pytest.mark.parametrize("fmt", FORMATS)
def test_python_convert_of_a_file_truncated_after_open_is_an_io_error(tmp_path, fmt):
    path, victim = make(fmt, tmp_path)
    out = tmp_path / "out.zt"
    code, stdout, err = run_paused(tmp_path, "convert:source-opened",
                                   [sys.executable, "-c", CONVERT, str(path), str(out)], victim,
                                   env={"PYTHONPATH": os.pathsep.join(sys.path)})
    assert code == 0 and stdout == "io_error True\n", (code, stdout, err)
    assert not out.exists()
