"""One version per read through fsspec: an object overwritten between open
and read is refused (length_mismatch, as the HTTP reader does), never read
as the new bytes under the old manifest; a versioned bucket keeps serving
the version opened; a store with no validator is refused unless allowed.
moto's S3 server on loopback, fsspec's memory and reference filesystems."""

import uuid

import numpy as np
import pytest

import ztensor
import ztensor.numpy as ztnp
from _stores import assert_one_line_error, keys, s3, small_model  # noqa: F401

pytest.importorskip("s3fs")

SAME_SIZE_SEED, ORIGINAL_SEED = 11, 3


def _zt_bytes(tensors, **kwargs):
    return ztnp.save(tensors, **kwargs)


def _same_size_rewrite(tensors):
    """Other values in the same layout: the file keeps its size, only the bytes differ."""
    other = {k: (v + 1).astype(v.dtype) for k, v in tensors.items()}
    return _zt_bytes(other)


def _other_layout(tensors):
    """Another file under the same key: the tensors in reverse order, so every offset moves."""
    return _zt_bytes({k: tensors[k] + 7 for k in reversed(list(tensors))})


@pytest.fixture
def bucket(s3):
    """A fresh unversioned bucket: (client, name, storage_options)."""
    server, options = s3
    name = f"pin-{uuid.uuid4().hex[:12]}"
    return server.bucket(name), name, options


@pytest.mark.parametrize("rewrite", [_same_size_rewrite, _other_layout], ids=["same-size", "other-layout"])
def test_overwrite_between_open_and_read_is_refused(bucket, rewrite):
    client, name, options = bucket
    tensors = small_model()
    original = _zt_bytes(tensors)
    client.put_object(Bucket=name, Key="m.zt", Body=original)
    new = rewrite(tensors)
    if rewrite is _same_size_rewrite:
        assert len(new) == len(original)
    with ztensor.open(f"s3://{name}/m.zt", storage_options=options) as r:
        client.put_object(Bucket=name, Key="m.zt", Body=new)
        refused = 0
        for tensor in r.keys():
            with pytest.raises(ztensor.FormatError) as e:
                r.read(tensor)
            assert_one_line_error(e.value, "length_mismatch")
            assert f"s3://{name}/m.zt" in str(e.value) and "changed" in str(e.value)
            refused += 1
        assert refused == len(tensors)  # not one tensor of the new file under the old manifest


def test_overwrite_during_convert_publishes_nothing(bucket, tmp_path):
    client, name, options = bucket
    tensors = small_model()
    client.put_object(Bucket=name, Key="m.zt", Body=_zt_bytes(tensors))
    swapped = []

    def swap(done, total):
        if not swapped:
            client.put_object(Bucket=name, Key="m.zt", Body=_same_size_rewrite(tensors))
            swapped.append(done)

    with pytest.raises(ztensor.FormatError) as e:
        ztensor.convert(f"s3://{name}/m.zt", tmp_path / "out.zt", progress=swap, storage_options=options)
    assert_one_line_error(e.value, "length_mismatch")
    assert list(tmp_path.iterdir()) == []


def test_versioned_bucket_reads_the_version_opened(s3):
    server, options = s3
    name = f"pin-versioned-{uuid.uuid4().hex[:8]}"
    client = server.bucket(name, versioned=True)
    tensors = small_model()
    client.put_object(Bucket=name, Key="m.zt", Body=_zt_bytes(tensors))
    with ztensor.open(f"s3://{name}/m.zt", storage_options=options) as r:
        client.put_object(Bucket=name, Key="m.zt", Body=_other_layout(tensors))
        for tensor, want in tensors.items():
            np.testing.assert_array_equal(r.read(tensor), want)  # the old version, whole
    with ztensor.open(f"s3://{name}/m.zt", storage_options=options) as r:  # a new open sees the new one
        np.testing.assert_array_equal(r.read("layer0.w"), tensors["layer0.w"] + 7)


def test_sharded_set_pins_each_shard(bucket, tmp_path):
    client, name, options = bucket
    tensors = small_model()
    ztnp.save_file(tensors, str(tmp_path / "set.zt"), max_shard_size="4KB")
    for path in sorted(tmp_path.iterdir()):
        client.upload_file(str(path), name, path.name)
    shard = sorted(p.name for p in tmp_path.iterdir() if "-00002-of-" in p.name)[0]
    with ztensor.open(f"s3://{name}/set.zt.index.json", storage_options=options) as r:
        rewritten = ztnp.load_file(str(tmp_path / shard))
        client.put_object(Bucket=name, Key=shard, Body=_same_size_rewrite(rewritten))
        with pytest.raises(ztensor.FormatError) as e:
            for tensor in rewritten:
                r.read(tensor)
        assert_one_line_error(e.value, "length_mismatch")
        assert shard in str(e.value)


def test_memory_filesystem_overwrite_is_refused():
    import fsspec

    fs = fsspec.filesystem("memory")
    path = f"/pin-{uuid.uuid4().hex}/m.zt"
    tensors = small_model()
    fs.pipe_file(path, _zt_bytes(tensors))
    try:
        with ztensor.open(f"memory://{path}") as r:
            np.testing.assert_array_equal(r.read("layer1.w"), tensors["layer1.w"])
            fs.pipe_file(path, _other_layout(tensors))
            with pytest.raises(ztensor.FormatError) as e:
                r.read("layer2.w")
            assert_one_line_error(e.value, "length_mismatch")
    finally:
        fs.rm(path.rsplit("/", 1)[0], recursive=True)


def test_store_without_validator_is_refused_unless_allowed(tmp_path):
    # fsspec's reference filesystem (kerchunk's) knows only sizes: nothing can tell two versions apart.
    tensors = small_model()
    ztnp.save_file(tensors, str(tmp_path / "m.zt"))
    options = {"fo": {"version": 1, "refs": {"m.zt": [str(tmp_path / "m.zt")]}}}
    with pytest.raises(ztensor.UnsupportedError) as e:
        ztensor.open("reference://m.zt", storage_options=options)
    assert_one_line_error(e.value, "unsupported")
    assert "allow_unvalidated" in str(e.value)
    with ztensor.open("reference://m.zt", storage_options={**options, "allow_unvalidated": True}) as r:
        np.testing.assert_array_equal(r.read("layer4.w"), tensors["layer4.w"])


def test_zstn_at_a_url_is_read_lazily_and_pinned(bucket, tmp_path):
    from safetensors.numpy import save_file as st_save
    from z4ai.safetensors import compress_file

    client, name, options = bucket
    tensors = small_model()
    st_save(tensors, str(tmp_path / "m.safetensors"))
    compress_file(str(tmp_path / "m.safetensors"), str(tmp_path / "m.zstn"))
    client.upload_file(str(tmp_path / "m.zstn"), name, "m.zstn")
    with ztensor.open(f"s3://{name}/m.zstn", storage_options=options) as r:
        assert r.format == "safetensors"
        np.testing.assert_array_equal(r.read("layer3.w"), tensors["layer3.w"])
        client.put_object(Bucket=name, Key="m.zstn", Body=b"ZSTN" + bytes(100))
        with pytest.raises(ztensor.FormatError) as e:
            r.read("layer5.w")
        assert_one_line_error(e.value, "length_mismatch")
    assert keys(client, name) == ["m.zstn"]
