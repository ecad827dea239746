"""Every `zt CMD --help` matches the code: each option it names is
one the command accepts, its lines fit 80 columns, and info/ls/diff read
every format their help names."""

import re
import subprocess

import numpy as np
import pytest

from _cli import ZT, needs_zt
from _util import write_gguf

pytestmark = needs_zt
COMMANDS = ["info", "ls", "diff", "verify", "convert", "compress", "decompress", "delta"]


def zt(*args):
    return subprocess.run([ZT, *map(str, args)], capture_output=True, text=True, timeout=300)


def help_text(cmd):
    r = zt(cmd, "--help")
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.mark.parametrize("cmd", COMMANDS)
def test_every_option_in_help_is_accepted(cmd):
    # the Usage lines and the option table (other commands' options are only mentioned in prose)
    text = help_text(cmd).split("\n\n")
    usage = text[0]
    table = [line for line in help_text(cmd).splitlines() if re.match(r"^\s+--", line)]
    options = set(re.findall(r"(?<![\w-])--([a-z][a-z-]*)", usage + "\n" + "\n".join(table))) - {"help"}
    assert options, f"zt {cmd} --help names no option"
    for opt in sorted(options):
        r = zt(cmd, f"--{opt}")
        assert "unknown option" not in r.stderr, f"zt {cmd} --help names --{opt}, which the command refuses"


@pytest.mark.parametrize("cmd", [None, *COMMANDS])
def test_help_fits_80_columns(cmd):
    text = help_text(cmd) if cmd else zt("--help").stdout
    wide = [line for line in text.splitlines() if len(line) > 80]
    assert not wide, wide


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    import torch
    from safetensors.numpy import save_file

    d = tmp_path_factory.mktemp("formats")
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = {}
    save_file({"x": x}, str(d / "m.safetensors"))
    out["safetensors"] = d / "m.safetensors"
    np.save(d / "m.npy", x)
    out["npy"] = d / "m.npy"
    np.savez(d / "m.npz", x=x)
    out["npz"] = d / "m.npz"
    torch.save({"x": torch.from_numpy(x)}, d / "m.pt")
    out["pytorch"] = d / "m.pt"
    write_gguf(d / "m.gguf", {"x": x})
    out["gguf"] = d / "m.gguf"
    import onnx
    from onnx import helper, numpy_helper

    graph = helper.make_graph([], "g", [], [], initializer=[numpy_helper.from_array(x, "x")])
    onnx.save(helper.make_model(graph), str(d / "m.onnx"))
    out["onnx"] = d / "m.onnx"
    import ztensor

    ztensor.numpy.save_file({"x": x}, d / "m.zt")
    out["zt"] = d / "m.zt"
    ztensor.numpy.save_file({"m": x}, d / "npy.zt")  # a .npy's one array is named after the file
    out["zt_npy"] = d / "npy.zt"
    return out


@pytest.mark.parametrize("fmt", ["safetensors", "npy", "npz", "pytorch", "gguf", "onnx", "zt"])
def test_info_ls_diff_read_every_format_their_help_names(files, fmt):
    path = files[fmt]
    assert zt("info", path).returncode == 0
    r = zt("ls", path)
    assert r.returncode == 0 and r.stdout.split()[0] == ("m" if fmt == "npy" else "x"), r.stdout + r.stderr
    r = zt("diff", path, files["zt_npy" if fmt == "npy" else "zt"])
    assert r.returncode == 0, r.stdout + r.stderr
    names = {"npy": ".npy", "npz": ".npz", "pytorch": "PyTorch", "gguf": "GGUF", "onnx": ".onnx",
             "safetensors": "safetensors", "zt": ".zt"}
    for cmd in ("info", "ls", "diff"):
        assert names[fmt] in help_text(cmd), f"zt {cmd} reads {fmt} but its help does not say so"


def test_top_help_says_how_formats_are_detected(files, tmp_path):
    # ONNX has no magic, yet zt recognises it by its first fields, whatever the file is called.
    renamed = tmp_path / "weights.bin"
    renamed.write_bytes(files["onnx"].read_bytes())
    r = zt("ls", renamed, "--json")
    assert r.returncode == 0 and '"x"' in r.stdout, r.stdout + r.stderr
    text = " ".join(zt("--help").stdout.split())
    assert "detected from the content" in text and "ONNX from its extension" not in text
