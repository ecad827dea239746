"""Folder conversion writes only inside OUT and never changes the input:
every copy is named by its path under IN (a link by its own name, written
as a regular file), links leaving IN are refused except a Hugging Face
cache snapshot's links into its blobs/, special files are refused without
being opened, and a failure leaves nothing (OUT included when the
conversion made it). Through `zt convert` and ztensor.convert."""

import json
import os
import socket
import subprocess

import numpy as np
import pytest
from _cli import ZT, needs_zt
from _pause import Pause

import ztensor

st = pytest.importorskip("safetensors.numpy")


def zt(*args, env=None):
    return subprocess.run([ZT, *map(str, args)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})})


def tensors():
    rng = np.random.default_rng(3)
    return {f"layer{i}.weight": rng.standard_normal((8, 16)).astype(np.float32) for i in range(4)}


def plain_folder(root):
    d = root / "model"
    d.mkdir(parents=True)
    st.save_file(tensors(), str(d / "model.safetensors"))
    (d / "config.json").write_text('{"model_type": "toy"}')
    return d


def snapshot(state):
    """What must not change: every file's bytes, inode, mode and mtime."""
    out = {}
    for p in sorted(state.rglob("*")):
        if p.is_file() and not p.is_symlink():
            s = p.stat()
            out[str(p)] = (p.read_bytes(), s.st_ino, s.st_mode, s.st_mtime_ns)
    return out


def convert_both(src, out, python_out):
    """(exit code, stderr) of zt convert, and the ZTensorError (or None) of ztensor.convert."""
    r = zt("convert", src, out)
    try:
        ztensor.convert(src, python_out)
        err = None
    except ztensor.ZTensorError as e:
        err = e
    return r, err


@needs_zt
@pytest.mark.parametrize("absolute", [False, True])
def test_link_leaving_the_folder_is_refused_and_its_target_untouched(tmp_path, absolute):
    secret = tmp_path / "home" / ".ssh" / "id_rsa"
    secret.parent.mkdir(parents=True)
    secret.write_text("PRIVATE KEY")
    secret.chmod(0o600)
    d = plain_folder(tmp_path / "dl")
    target = secret if absolute else os.path.relpath(secret, d)
    (d / "tokenizer.json").symlink_to(target)
    before = snapshot(tmp_path / "home")
    for out in (d.parent / "out-cli", tmp_path / "out-cli"):  # beside IN, and where the relative link would lead
        r, err = convert_both(d, out, tmp_path / "out-py")
        assert r.returncode == 1 and "invalid_structure" in r.stderr and "tokenizer.json" in r.stderr, r.stderr
        assert err is not None and err.code == "invalid_structure" and "outside the folder" in str(err)
        assert not out.exists() and not (tmp_path / "out-py").exists()
    assert snapshot(tmp_path / "home") == before


@needs_zt
def test_a_link_inside_the_folder_is_copied_under_its_own_name_as_a_file(tmp_path):
    d = plain_folder(tmp_path)
    (d / "vocab").mkdir()
    (d / "vocab" / "real.json").write_text('{"a": 1}')
    (d / "tokenizer.json").symlink_to("vocab/real.json")
    for out in (tmp_path / "cli", tmp_path / "py"):
        if out.name == "cli":
            r = zt("convert", d, out)
            assert r.returncode == 0, r.stderr
        else:
            stats = ztensor.convert(d, out)
            assert stats.src_format == "folder" and stats.objects == 4
        assert not (out / "tokenizer.json").is_symlink()
        assert (out / "tokenizer.json").read_text() == '{"a": 1}'
        assert (out / "vocab" / "real.json").read_text() == '{"a": 1}'


def hf_cache(root):
    """huggingface_hub's cache layout: blobs/ named by hash, and a snapshot
    folder whose files (a sharded model, config, a subfolder) are relative
    links into blobs/."""
    repo = root / "hub" / "models--org--toy"
    blobs = repo / "blobs"
    snap = repo / "snapshots" / "0123abcd"
    (snap / "1_Pooling").mkdir(parents=True)
    blobs.mkdir()
    src = tensors()
    names = list(src)
    files = {}
    weight_map = {}
    for i, part in enumerate([names[:2], names[2:]], 1):
        fname = f"model-0000{i}-of-00002.safetensors"
        st.save_file({k: src[k] for k in part}, str(root / "tmp.safetensors"))
        files[fname] = (root / "tmp.safetensors").read_bytes()
        weight_map.update({k: fname for k in part})
    files["model.safetensors.index.json"] = json.dumps({"metadata": {"total_size": 2048},
                                                         "weight_map": weight_map}).encode()
    files["config.json"] = b'{"model_type": "toy"}'
    files["1_Pooling/config.json"] = b'{"pooling_mode_mean_tokens": true}'
    for i, (rel, data) in enumerate(sorted(files.items())):
        blob = blobs / f"{i:040x}"
        blob.write_bytes(data)
        link = snap / rel
        link.symlink_to(os.path.relpath(blob, link.parent))
    return repo, snap, src, files


@needs_zt
def test_a_hugging_face_cache_snapshot_converts_and_its_blobs_stay_as_they_were(tmp_path):
    repo, snap, src, files = hf_cache(tmp_path)
    before = snapshot(repo / "blobs")
    elsewhere, beside = tmp_path / "out", repo / "snapshots" / "0123abcd-zt"
    r = zt("convert", snap, elsewhere, "--compress", "zstd")
    assert r.returncode == 0, r.stderr
    stats = ztensor.convert(snap, beside)
    assert stats.objects == 4
    for out in (elsewhere, beside):
        got = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
        assert got == ["1_Pooling/config.json", "config.json", "model-00001-of-00002.zt", "model-00002-of-00002.zt",
                       "model.zt.index.json"]
        assert not any(p.is_symlink() for p in out.rglob("*"))
        for rel in ("config.json", "1_Pooling/config.json"):
            assert (out / rel).read_bytes() == files[rel]
        with ztensor.open(out / "model.zt.index.json") as zr:
            for k, v in src.items():
                np.testing.assert_array_equal(zr.read(k), v)
    assert snapshot(repo / "blobs") == before
    assert sorted(p.name for p in (repo / "blobs").iterdir()) == sorted(f"{i:040x}" for i in range(len(files)))


@needs_zt
@pytest.mark.parametrize("kind", ["fifo", "socket", "link to fifo", "device"])
def test_special_files_are_refused_without_being_opened(tmp_path, kind):
    d = plain_folder(tmp_path)
    special = d / "pipe"
    if kind == "socket":
        s = socket.socket(socket.AF_UNIX)
        s.bind(str(special))
    elif kind == "device":
        (d / "pipe").symlink_to("/dev/zero")  # a link to a character device
    else:
        os.mkfifo(special if kind == "fifo" else d / "real-fifo")
        if kind == "link to fifo":
            (d / "pipe").symlink_to("real-fifo")
    # A FIFO opened for reading blocks until a writer appears: the run's
    # timeout would catch a hang.
    r, err = convert_both(d, tmp_path / "cli", tmp_path / "py")
    assert r.returncode == 1 and "unsupported" in r.stderr, r.stderr
    assert err is not None and err.code == "unsupported" and "regular files only" in str(err)
    assert not (tmp_path / "cli").exists() and not (tmp_path / "py").exists()


@needs_zt
def test_a_failure_after_the_weights_are_written_leaves_nothing(tmp_path):
    d = plain_folder(tmp_path)
    (d / "tokenizer.json").write_text("{}")
    out = tmp_path / "out"
    pause = Pause(tmp_path, "folder:weights-published")
    p = subprocess.Popen([ZT, "convert", str(d), str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env={**os.environ, **pause.env})
    pause.wait(p)
    assert (out / "model.zt").exists()
    (d / "tokenizer.json").unlink()  # the copy that follows fails
    pause.resume()
    _, stderr = p.communicate(timeout=120)
    assert p.returncode == 1 and "tokenizer.json" in stderr, stderr
    assert not out.exists()  # the conversion made it, so it goes too

    # An OUT that was there stays, without what the failed run wrote into it.
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    (out / "sub").symlink_to(tmp_path)  # a link out of OUT where a subfolder goes
    (d / "sub").mkdir()
    (d / "sub" / "a.json").write_text("{}")
    r = zt("convert", d, out)
    assert r.returncode == 1 and "writes only inside" in r.stderr, r.stderr
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt", "sub"]
    assert not (tmp_path / "a.json").exists()


def test_python_progress_exception_removes_the_folder_it_made(tmp_path):
    d = plain_folder(tmp_path)

    def stop(done, total):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        ztensor.convert(d, tmp_path / "out", progress=stop)
    assert not (tmp_path / "out").exists()
    assert sorted(p.name for p in d.iterdir()) == ["config.json", "model.safetensors"]
