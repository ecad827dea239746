"""`zt compress`, `zt decompress`, `zt delta` and the --json / --help of
every subcommand, driven through subprocess.

The binary is found by _cli.py ($ZT_CLI, else `zt` on PATH, else the
newest build*/cli/zt in the repository). Checkpoints are
written by the real producer (the `safetensors` package).
"""

import json
import os
import signal
import subprocess

import numpy as np
import pytest
from _cli import ZT, needs_zt
from _waits import EVENT_SECONDS, PausePoint

safetensors_numpy = pytest.importorskip("safetensors.numpy")



pytestmark = needs_zt

COMMANDS = ("info", "ls", "convert", "verify", "diff", "compress", "decompress", "delta")
JSON_KEYS = (
    "command",
    "input",
    "output",
    "input_format",
    "output_format",
    "input_bytes",
    "output_bytes",
    "ratio",
    "tensors",
    "seconds",
)


def zt(*args):
    return subprocess.run([ZT, *map(str, args)], capture_output=True, text=True, timeout=300)


def zt_json(*args):
    r = zt(*args, "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def base_tensors():
    rng = np.random.default_rng(11)
    w = rng.standard_normal((64, 64)).astype(np.float32)
    return {
        "embed.weight": w,
        "lm_head.weight": w.copy(),  # tied: stored once in .zstn
        "layer.0.weight": rng.standard_normal((32, 48)).astype(np.float16),
        "layer.0.bias": rng.standard_normal(48).astype(np.float64),
        "layer.1.weight": rng.standard_normal((48, 32)).astype(np.float32),
        "positions": np.arange(-100, 100, dtype=np.int64),
        "bytes": rng.integers(0, 256, 300, dtype=np.uint8),
        "mask": rng.integers(0, 2, 17).astype(bool),
        "empty": np.zeros((0, 4), dtype=np.float32),
        "scalar": np.array(0.5, dtype=np.float32),
    }


def finetuned(base):
    """A fine-tune: some tensors unchanged, a few weights nudged, one tensor
    added, one dropped, one reshaped."""
    t = {k: v.copy() for k, v in base.items()}
    w = t["layer.1.weight"]
    w[::7, ::5] += np.float32(1e-3)  # a few weights changed: DELTA
    t["layer.0.bias"] = t["layer.0.bias"] * 1.0001
    del t["bytes"]
    t["adapter.weight"] = np.random.default_rng(3).standard_normal((16, 16)).astype(np.float32)  # new: FULL
    t["positions"] = np.arange(0, 50, dtype=np.int64)  # reshaped: FULL
    return t


def save(path, tensors, metadata=None):
    safetensors_numpy.save_file(tensors, str(path), metadata=metadata)
    return path


@pytest.fixture
def st_file(tmp_path):
    return save(tmp_path / "model.safetensors", base_tensors(), {"format": "np", "note": "caf\u00e9"})


def only(tmp_path, *names):
    """The directory holds exactly `names` (no output, no temporaries)."""
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names)


# --- help and usage ---------------------------------------------------------


def test_top_level_help_lists_every_command():
    r = zt("--help")
    assert r.returncode == 0
    for cmd in COMMANDS:
        assert "  " + cmd + " " in r.stdout, cmd
    assert "delta --apply" in r.stdout
    assert "Examples" in r.stdout


@pytest.mark.parametrize("cmd", COMMANDS)
def test_every_subcommand_help_has_usage_and_examples(cmd):
    for flag in ("--help", "-h"):
        r = zt(cmd, flag)
        assert r.returncode == 0, (cmd, r.stderr)
        assert r.stdout.startswith("Usage: zt " + cmd)
        assert "Examples:" in r.stdout
        assert "  zt " + cmd in r.stdout.split("Examples:")[1]


@pytest.mark.parametrize("cmd", ("info", "ls", "verify", "diff", "compress", "decompress", "delta"))
def test_help_documents_json(cmd):
    assert "--json" in zt(cmd, "--help").stdout


@pytest.mark.parametrize(
    "args",
    [
        ["compress"],
        ["compress", "a.safetensors"],
        ["compress", "a.safetensors", "b.zstn", "c"],
        ["compress", "a.safetensors", "b.zstn", "--effort", "ultra"],
        ["compress", "a.safetensors", "b.zstn", "--effort", ""],
        ["compress", "a.safetensors", "b.zstn", "--threads", "-1"],
        ["compress", "a.safetensors", "b.zstn", "--threads", "two"],
        ["compress", "a.safetensors", "b.zt", "--encoding", "lz4"],
        ["compress", "a.safetensors", "b.zt", "--encoding", "zstd", "--effort", "max"],
        ["compress", "a.safetensors", "b.zt", "--encoding", "raw", "--level", "3"],
        ["compress", "a.safetensors", "b.zt", "--level", "0"],
        ["compress", "a.safetensors", "b.zt", "--level", "23"],
        ["compress", "a.safetensors", "b.zt", "--checksum", "md5"],
        ["compress", "a.safetensors", "b.zt", "--bogus"],
        ["decompress", "a.zstn"],
        ["decompress", "a.zstn", "b", "--threads", "x"],
        ["decompress", "a.zstn", "b", "--effort", "max"],
        ["delta", "base.safetensors", "target.safetensors"],
        ["delta", "--apply", "base.safetensors", "d.z4dm"],
        ["delta", "a", "b", "c", "d"],
        ["delta", "a", "b", "c", "--level", "0"],
        ["delta", "--apply", "a", "b", "c", "--level", "3"],
    ],
)
def test_usage_errors_exit_2(args):
    r = zt(*args)
    assert r.returncode == 2, (args, r.stdout, r.stderr)
    assert "zt: usage error:" in r.stderr


def test_usage_errors_that_need_the_input(st_file, tmp_path):
    zt_file = tmp_path / "model.zt"
    assert zt("convert", st_file, zt_file).returncode == 0
    r = zt("compress", zt_file, tmp_path / "x.zstn")  # ZSTN wraps safetensors only
    assert r.returncode == 2
    assert "safetensors" in r.stderr
    r = zt("compress", st_file, tmp_path / "x.zstn", "--encoding", "zstd")
    assert r.returncode == 2
    r = zt("compress", st_file, tmp_path / "x.zt", "--threads", "2")
    assert r.returncode == 2
    only(tmp_path, "model.safetensors", "model.zt")


# --- compress / decompress: safetensors <-> ZSTN ----------------------------


@pytest.mark.parametrize("effort", [None, "default", "balanced", "max"])
def test_zstn_round_trip_is_byte_exact(st_file, tmp_path, effort):
    packed, back = tmp_path / "model.zstn", tmp_path / "back.safetensors"
    extra = ["--effort", effort] if effort else []
    r = zt("compress", st_file, packed, *extra)
    assert r.returncode == 0, r.stderr
    assert "model.safetensors -> " in r.stdout and "ratio" in r.stdout
    assert packed.read_bytes()[:4] == b"ZSTN"
    r = zt("decompress", packed, back)
    assert r.returncode == 0, r.stderr
    assert back.read_bytes() == st_file.read_bytes()


def test_zstn_is_smaller_for_redundant_weights(tmp_path):
    src = save(tmp_path / "z.safetensors", {"zeros": np.zeros((256, 256), np.float32), "ones": np.ones(4096, np.float16)})
    j = zt_json("compress", src, tmp_path / "z.zstn")
    assert j["output_bytes"] < j["input_bytes"] / 10
    assert j["ratio"] > 10


def test_zstn_output_does_not_depend_on_threads(st_file, tmp_path):
    outs = []
    for n in ("1", "3", "0"):
        out = tmp_path / f"t{n}.zstn"
        assert zt("compress", st_file, out, "--threads", n).returncode == 0
        outs.append(out.read_bytes())
    assert outs[0] == outs[1] == outs[2]


def test_compress_and_decompress_json(st_file, tmp_path):
    packed, back = tmp_path / "m.zstn", tmp_path / "m.safetensors"
    j = zt_json("compress", st_file, packed, "--effort", "balanced")
    for key in JSON_KEYS + ("effort", "encoding"):
        assert key in j, key
    assert j["command"] == "compress"
    assert (j["input_format"], j["output_format"]) == ("safetensors", "zstn")
    assert j["input_bytes"] == st_file.stat().st_size
    assert j["output_bytes"] == packed.stat().st_size
    assert j["tensors"] == len(base_tensors())
    assert j["effort"] == "balanced" and j["encoding"] == "z4ai"
    assert j["ratio"] == pytest.approx(j["input_bytes"] / j["output_bytes"])
    d = zt_json("decompress", packed, back)
    for key in JSON_KEYS:
        assert key in d, key
    assert (d["input_format"], d["output_format"]) == ("zstn", "safetensors")
    assert d["output_bytes"] == st_file.stat().st_size
    assert d["tensors"] == len(base_tensors())


def test_other_output_names_pick_zstn_for_safetensors(st_file, tmp_path):
    out = tmp_path / "model.packed"
    assert zt("compress", st_file, out).returncode == 0
    assert out.read_bytes()[:4] == b"ZSTN"


def test_zstn_decompresses_to_a_raw_zt(st_file, tmp_path):
    packed, out = tmp_path / "m.zstn", tmp_path / "m.zt"
    assert zt("compress", st_file, packed).returncode == 0
    j = zt_json("decompress", packed, out)
    assert (j["input_format"], j["output_format"]) == ("zstn", "zt")
    assert encodings(out) == {"raw"}
    assert zt("diff", st_file, out).returncode == 0


@pytest.mark.parametrize("tensors", [{}, {"e": np.zeros((0, 2), np.float32)}], ids=["no-tensors", "empty-tensor"])
def test_degenerate_checkpoints_round_trip(tmp_path, tensors):
    src = save(tmp_path / "s.safetensors", tensors, {"k": "v"})
    packed, back, delta, back2 = (tmp_path / n for n in ("s.zstn", "b.safetensors", "s.z4dm", "b2.safetensors"))
    assert zt("compress", src, packed).returncode == 0
    assert zt("decompress", packed, back).returncode == 0
    assert back.read_bytes() == src.read_bytes()
    assert zt("delta", src, src, delta).returncode == 0
    assert zt("delta", "--apply", src, delta, back2).returncode == 0
    assert back2.read_bytes() == src.read_bytes()


def test_compress_refuses_a_safetensors_output_name(st_file, tmp_path):
    r = zt("compress", st_file, tmp_path / "x.safetensors")
    assert r.returncode == 2
    assert ".zstn or .zt" in r.stderr
    only(tmp_path, "model.safetensors")


def flip_byte(path, offset):
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x5A
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("where", ["middle", "footer", "truncated", "version"])
def test_corrupt_zstn_exit_1_and_nothing_written(st_file, tmp_path, where):
    packed = tmp_path / "bad.zstn"
    assert zt("compress", st_file, packed).returncode == 0
    size = packed.stat().st_size
    if where == "truncated":
        packed.write_bytes(packed.read_bytes()[: size // 2])
    else:
        flip_byte(packed, {"middle": size // 2, "footer": size - 12, "version": 4}[where])
    out = tmp_path / "out.safetensors"
    r = zt("decompress", packed, out)
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert r.stderr.startswith("zt: error: ")
    assert "bad.zstn" in r.stderr or "ZSTN" in r.stderr
    assert not out.exists()
    r = zt("verify", packed)
    assert r.returncode == 1
    only(tmp_path, "model.safetensors", "bad.zstn")


def test_decompress_rejects_what_it_cannot_undo(st_file, tmp_path):
    r = zt("decompress", st_file, tmp_path / "x.safetensors")
    assert r.returncode == 1
    assert "not something zt compressed" in r.stderr
    r = zt("decompress", tmp_path / "missing.zstn", tmp_path / "x.safetensors")
    assert r.returncode == 1
    assert "io_error" in r.stderr
    only(tmp_path, "model.safetensors")


def test_verify_zstn(st_file, tmp_path):
    packed = tmp_path / "m.zstn"
    assert zt("compress", st_file, packed).returncode == 0
    r = zt("verify", packed)
    assert r.returncode == 0, r.stderr
    assert "OK (zstn" in r.stdout
    j = zt_json("verify", packed)
    assert j["ok"] is True and j["format"] == "zstn" and j["objects"] == len(base_tensors())


# --- compress / decompress: .zt ---------------------------------------------


def read_zt(path):
    ztensor = pytest.importorskip("ztensor")
    out = {}
    with ztensor.open(str(path)) as r:  # the core library always decodes z4ai: a failure is a failure
        for name in r.keys():
            out[name] = np.asarray(r.read(name))
    return out


def encodings(path):
    objs = zt_json("info", path)["objects"]
    return {c["encoding"] for o in objs.values() for c in o["components"].values()}


@pytest.mark.parametrize(
    "options,encoding",
    [
        ([], "z4ai"),
        (["--effort", "max"], "z4ai"),
        (["--encoding", "z4ai", "--level", "19", "--checksum", "sha256"], "z4ai"),
        (["--encoding", "zstd", "--level", "9"], "zstd"),
        (["--encoding", "raw", "--checksum", "crc32c"], "raw"),
    ],
)
def test_compress_to_zt_reads_back_equal(st_file, tmp_path, options, encoding):
    out = tmp_path / "model.zt"
    j = zt_json("compress", st_file, out, *options)
    assert (j["input_format"], j["output_format"], j["encoding"]) == ("safetensors", "zt", encoding)
    assert encodings(out) == {encoding}
    assert zt("verify", out).returncode == 0
    assert zt("diff", st_file, out).returncode == 0
    got = read_zt(out)
    for name, want in base_tensors().items():
        np.testing.assert_array_equal(got[name], want, err_msg=name)
        assert got[name].dtype == want.dtype and got[name].shape == want.shape


def test_zt_reencode_and_decompress(st_file, tmp_path):
    raw_zt, z4, back_zt, back_st = (tmp_path / n for n in ("raw.zt", "z4.zt", "back.zt", "back.safetensors"))
    assert zt("convert", st_file, raw_zt, "--checksum", "sha256").returncode == 0
    j = zt_json("compress", raw_zt, z4, "--effort", "balanced")
    assert (j["input_format"], j["output_format"], j["effort"]) == ("zt", "zt", "balanced")
    assert j["tensors"] == len(base_tensors())
    assert encodings(z4) == {"z4ai"}
    d = zt_json("decompress", z4, back_zt)
    assert (d["input_format"], d["output_format"]) == ("zt", "zt")
    assert encodings(back_zt) == {"raw"}
    assert zt("diff", raw_zt, back_zt).returncode == 0
    d = zt_json("decompress", z4, back_st)
    assert d["output_format"] == "safetensors"
    # Through safetensors: same tensors and metadata as the original.
    assert safetensors_numpy.load_file(str(back_st)).keys() == base_tensors().keys()
    for name, want in safetensors_numpy.load_file(str(back_st)).items():
        np.testing.assert_array_equal(want, base_tensors()[name])


def test_compress_other_formats_to_zt(tmp_path):
    arrays = {"x": np.arange(10.0), "y": np.ones((3, 3), np.int32)}
    npz = tmp_path / "arrays.npz"
    np.savez(npz, **arrays)
    out = tmp_path / "arrays.zt"
    j = zt_json("compress", npz, out, "--effort", "balanced")
    assert (j["input_format"], j["output_format"], j["tensors"]) == ("npz", "zt", 2)
    assert encodings(out) == {"z4ai"}
    got = read_zt(out)
    for name, want in arrays.items():
        np.testing.assert_array_equal(got[name], want)
    r = zt("compress", npz, tmp_path / "arrays.zstn")  # ZSTN wraps safetensors only
    assert r.returncode == 2
    assert "safetensors" in r.stderr


def test_compress_corrupt_zt_input_exit_1(st_file, tmp_path):
    src = tmp_path / "src.zt"
    assert zt("convert", st_file, src, "--checksum", "sha256").returncode == 0
    off = zt_json("info", src)["objects"]["layer.1.weight"]["components"]["data"]["offset"]
    flip_byte(src, off + 3)
    r = zt("compress", src, tmp_path / "out.zt")
    assert r.returncode == 1
    assert "digest_mismatch" in r.stderr
    only(tmp_path, "model.safetensors", "src.zt")


# --- delta ------------------------------------------------------------------


@pytest.fixture
def pair(tmp_path):
    base = base_tensors()
    b = save(tmp_path / "base.safetensors", base, {"step": "0"})
    t = save(tmp_path / "target.safetensors", finetuned(base), {"step": "100"})
    return b, t


def test_delta_round_trip_is_byte_exact(pair, tmp_path):
    base, target = pair
    delta, back = tmp_path / "ft.z4dm", tmp_path / "back.safetensors"
    r = zt("delta", base, target, delta)
    assert r.returncode == 0, r.stderr
    assert "copy" in r.stdout and "delta" in r.stdout and "full" in r.stdout
    assert delta.read_bytes()[:4] == b"Z4DM"
    r = zt("delta", "--apply", base, delta, back)
    assert r.returncode == 0, r.stderr
    assert back.read_bytes() == target.read_bytes()


def test_delta_json_counts_each_kind(pair, tmp_path):
    base, target = pair
    delta = tmp_path / "ft.z4dm"
    j = zt_json("delta", base, target, delta, "--threads", "2")
    for key in JSON_KEYS + ("base", "base_digest", "copy", "delta", "full"):
        assert key in j, key
    assert (j["input_format"], j["output_format"]) == ("safetensors", "z4dm")
    n = len(finetuned(base_tensors()))
    assert j["tensors"] == n == j["copy"] + j["delta"] + j["full"]
    assert j["copy"] >= 6  # unchanged tensors, tied and empty ones included
    assert j["delta"] >= 1  # the nudged weights
    assert j["full"] >= 2  # the new and the reshaped tensor
    assert j["base_digest"].startswith("xxh3-64:")
    assert j["output_bytes"] == delta.stat().st_size
    a = zt_json("delta", "--apply", base, delta, tmp_path / "back.safetensors")
    assert a["command"] == "delta --apply"
    assert (a["input_format"], a["output_format"]) == ("z4dm", "safetensors")
    assert a["output_bytes"] == target.stat().st_size
    assert a["base_digest"] == j["base_digest"]


def test_delta_of_identical_files_is_tiny(pair, tmp_path):
    base, _ = pair
    j = zt_json("delta", base, base, tmp_path / "same.z4dm")
    assert j["copy"] == len(base_tensors()) and j["delta"] == j["full"] == 0
    assert j["output_bytes"] < 2048


def test_delta_output_does_not_depend_on_threads(pair, tmp_path):
    base, target = pair
    a, b = tmp_path / "a.z4dm", tmp_path / "b.z4dm"
    assert zt("delta", base, target, a, "--threads", "1").returncode == 0
    assert zt("delta", base, target, b, "--threads", "4").returncode == 0
    assert a.read_bytes() == b.read_bytes()


def test_delta_apply_with_wrong_base_fails_loudly(pair, tmp_path):
    base, target = pair
    delta = tmp_path / "ft.z4dm"
    assert zt("delta", base, target, delta).returncode == 0
    out = tmp_path / "out.safetensors"
    for wrong in (target, save(tmp_path / "other.safetensors", {"x": np.ones(3, np.float32)})):
        r = zt("delta", "--apply", wrong, delta, out)
        assert r.returncode == 1, r.stdout
        assert "digest_mismatch" in r.stderr
        assert "not the checkpoint" in r.stderr
        assert not out.exists()
    only(tmp_path, "base.safetensors", "target.safetensors", "ft.z4dm", "other.safetensors")


def test_delta_apply_rejects_corrupt_or_foreign_deltas(pair, tmp_path):
    base, target = pair
    delta = tmp_path / "ft.z4dm"
    assert zt("delta", base, target, delta).returncode == 0
    out = tmp_path / "out.safetensors"
    r = zt("delta", "--apply", base, target, out)  # not a delta at all
    assert r.returncode == 1
    assert "not a model delta" in r.stderr
    flip_byte(delta, delta.stat().st_size // 2)
    r = zt("delta", "--apply", base, delta, out)
    assert r.returncode == 1
    assert r.stderr.startswith("zt: error: ")
    assert not out.exists()
    r = zt("decompress", delta, out)  # decompress points at delta --apply
    assert r.returncode == 1
    assert "delta --apply" in r.stderr


def test_delta_needs_safetensors_inputs(pair, tmp_path):
    base, target = pair
    zt_file = tmp_path / "target.zt"
    assert zt("convert", target, zt_file).returncode == 0
    r = zt("delta", base, zt_file, tmp_path / "d.z4dm")
    assert r.returncode == 1
    assert "TARGET" in r.stderr and "safetensors" in r.stderr
    r = zt("delta", tmp_path / "missing.safetensors", target, tmp_path / "d.z4dm")
    assert r.returncode == 1
    assert not (tmp_path / "d.z4dm").exists()


# --- info / ls / verify on .zstn and Z4DM ------------------------------------


def test_info_and_ls_on_zstn(st_file, tmp_path):
    packed = tmp_path / "m.zstn"
    assert zt("compress", st_file, packed).returncode == 0
    j = zt_json("info", packed)
    assert (j["format"], j["version"], j["contiguous"]) == ("zstn", 3, True)
    assert j["file_size"] == packed.stat().st_size
    assert j["metadata"] == {"format": "np", "note": "caf\u00e9"}
    t = j["tensors"]
    assert set(t) == set(base_tensors())
    assert t["layer.0.weight"]["dtype"] == "F16" and t["layer.0.weight"]["shape"] == [32, 48]
    assert t["layer.0.weight"]["length"] == 32 * 48 * 2
    # The tied copy shares the first one's frame.
    kinds = {t["embed.weight"]["kind"], t["lm_head.weight"]["kind"]}
    assert kinds == {"frame", "ref"}
    ref = t["embed.weight"] if t["embed.weight"]["kind"] == "ref" else t["lm_head.weight"]
    assert ref["ref"] in ("embed.weight", "lm_head.weight") and ref["stored_length"] == 0
    r = zt("info", packed)
    assert r.returncode == 0 and "ZSTN v3" in r.stdout and "layer.1.weight" in r.stdout
    ls = zt_json("ls", packed)
    assert {e["name"] for e in ls} == set(base_tensors())
    assert next(e for e in ls if e["name"] == "positions")["dtype"] == "i64"
    assert zt("ls", packed).stdout.count("\n") == len(base_tensors())


def test_info_and_verify_on_z4dm(pair, tmp_path):
    base, target = pair
    delta = tmp_path / "ft.z4dm"
    made = zt_json("delta", base, target, delta)
    j = zt_json("info", delta)
    assert (j["format"], j["version"]) == ("z4dm", 1)
    assert j["base_digest"] == made["base_digest"]
    assert j["metadata"] == {"step": "100"}
    kinds = [t["kind"] for t in j["tensors"].values()]
    assert (kinds.count("copy"), kinds.count("delta"), kinds.count("full")) == (made["copy"], made["delta"], made["full"])
    assert j["tensors"]["adapter.weight"]["kind"] == "full"
    r = zt("verify", delta)
    assert r.returncode == 0 and "OK (z4dm" in r.stdout
    flip_byte(delta, delta.stat().st_size // 3)
    for cmd in ("verify", "info", "ls"):
        r = zt(cmd, delta)
        assert r.returncode == 1, cmd
        assert "corrupt_stream" in r.stderr


# --- --json of the inspection commands --------------------------------------


def test_info_ls_verify_diff_json(st_file, tmp_path):
    out = tmp_path / "m.zt"
    assert zt("compress", st_file, out, "--checksum", "sha256").returncode == 0
    info = zt_json("info", out)
    assert info["format"] == "zt" and set(info["objects"]) == set(base_tensors())
    ls = zt_json("ls", out)
    assert {e["name"] for e in ls} == set(base_tensors())
    assert all(set(e) == {"name", "shape", "dtype", "type", "format"} for e in ls)
    v = zt_json("verify", out)
    assert v == {
        "file": str(out),
        "format": "zt",
        "ok": True,
        "objects": len(base_tensors()),
        "components": len(base_tensors()),
        "digests": len(base_tensors()),
        "unchecked": 0,
        "error": None,
    }
    d = zt_json("diff", st_file, out)
    assert d["identical"] is True


def test_verify_json_reports_the_error(st_file, tmp_path):
    out = tmp_path / "m.zt"
    assert zt("convert", st_file, out, "--checksum", "sha256").returncode == 0
    off = zt_json("info", out)["objects"]["embed.weight"]["components"]["data"]["offset"]
    flip_byte(out, off)
    r = zt("verify", out, "--json")
    assert r.returncode == 1
    j = json.loads(r.stdout)
    assert j["ok"] is False
    assert j["error"]["code"] == "digest_mismatch"
    assert "embed.weight" in j["error"]["message"]


# --- interruption and quiet output ------------------------------------------


def test_no_progress_output_when_stderr_is_not_a_terminal(st_file, tmp_path):
    for args in (
        ("compress", st_file, tmp_path / "a.zstn"),
        ("compress", st_file, tmp_path / "a.zt"),
        ("decompress", tmp_path / "a.zstn", tmp_path / "b.safetensors"),
        ("delta", st_file, tmp_path / "b.safetensors", tmp_path / "c.z4dm"),
    ):
        r = zt(*args)
        assert r.returncode == 0, r.stderr
        assert r.stderr == ""
        assert r.stdout.count("\n") == 1  # one summary line


@pytest.mark.parametrize("sig,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
@pytest.mark.parametrize("out_name", ["big.zt", "big.zstn"])
def test_interrupt_leaves_no_temporary(tmp_path, sig, code, out_name):
    rng = np.random.default_rng(5)
    big = {f"w{i}": rng.standard_normal((512, 512)).astype(np.float32) for i in range(24)}
    work = tmp_path / "work"
    work.mkdir()
    src = save(work / "big.safetensors", big)
    # zt stops after its first tensor is written to the temporary, until
    # released: the signal lands mid-write however fast the machine is.
    with PausePoint(tmp_path) as pause:
        p = subprocess.Popen([ZT, "compress", src, work / out_name], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=dict(os.environ, **pause.env))
        try:
            pause.wait(p)
            # The writer's temporary exists: named, or an O_TMPFILE inode of
            # the folder held open by the process.
            links = [os.readlink(f"/proc/{p.pid}/fd/{fd}") for fd in os.listdir(f"/proc/{p.pid}/fd")]
            assert list(work.glob(out_name + ".tmp-*")) or any(link.startswith(f"{work}/#") for link in links), links
            p.send_signal(sig)
            _, err = p.communicate(timeout=EVENT_SECONDS)
        finally:
            p.kill()  # only if an assertion above left it running
    assert p.returncode == code, err
    assert b"interrupted" in err
    only(work, "big.safetensors")
