"""ztensor.convert(..., client=): encoding on a 2-process Dask LocalCluster,
the writer on the client; output byte-identical to a local convert."""

import os

import numpy as np
import pytest

import ztensor
import ztensor.numpy as ztnp

distributed = pytest.importorskip("dask.distributed")


@pytest.fixture(scope="module")
def client():
    # Loopback only, no dashboard; bounded waits for start and shutdown.
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None, silence_logs=40) as cluster:
        with distributed.Client(cluster, timeout="60s") as c:
            yield c


def _model(path):
    rng = np.random.default_rng(7)
    tensors = {f"layer{i}.w": rng.standard_normal((64, 48 + i)).astype(np.float32) for i in range(12)}
    tensors["emb"] = (rng.standard_normal((300, 32)) * 0.02).astype(np.float16)
    tensors["ids"] = np.arange(1000, dtype=np.int64)
    ztnp.save_file(tensors, path, metadata={"origin": "test"})
    return tensors


def _files_in(folder):
    return sorted(os.listdir(folder))


@pytest.mark.parametrize("kwargs", [dict(compression="zstd"), dict(compression="zstd", level=9, checksum="sha256"),
                                    dict(compression="z4ai"), dict(compression="z4ai", effort="balanced")])
def test_byte_identical_to_local(tmp_path, client, kwargs):
    src = tmp_path / "in.safetensors"
    tensors = _model(src)
    ztensor.convert(src, tmp_path / "local.zt", **kwargs)
    stats = ztensor.convert(src, tmp_path / "dask.zt", client=client, **kwargs)
    assert (tmp_path / "dask.zt").read_bytes() == (tmp_path / "local.zt").read_bytes()
    assert stats.objects == len(tensors)
    assert stats.bytes == sum(t.nbytes for t in tensors.values())
    with ztensor.open(tmp_path / "dask.zt", verify=True) as r:
        for name, t in tensors.items():
            np.testing.assert_array_equal(r.read(name), t)


def test_zt_source_with_relative_path(tmp_path, client, monkeypatch):
    _model(tmp_path / "in.safetensors")
    ztensor.convert(tmp_path / "in.safetensors", tmp_path / "in.zt", compression="zstd", checksum="crc32c")
    monkeypatch.chdir(tmp_path)  # workers get an absolute path, whatever their cwd
    ztensor.convert("in.zt", "local.zt", compression="z4ai")
    ztensor.convert("in.zt", "dask.zt", compression="z4ai", client=client)
    assert (tmp_path / "dask.zt").read_bytes() == (tmp_path / "local.zt").read_bytes()


def _tasks_done(client, prefix):
    """Tasks of `prefix` (a function name) the scheduler saw finish."""
    counts = client.run_on_scheduler(
        lambda dask_scheduler: {k: dict(v.state_counts) for k, v in dask_scheduler.task_prefixes.items()})
    return sum(c.get("memory", 0) for name, c in counts.items() if name.strip("_") == prefix)


@pytest.mark.parametrize("kwargs", [dict(compression="zstd"), dict(compression="z4ai", checksum="sha256")])
def test_sharded_output_written_by_the_workers(tmp_path, client, kwargs):
    src = tmp_path / "in.safetensors"
    tensors = _model(src)
    (tmp_path / "local").mkdir()
    (tmp_path / "dask").mkdir()
    local = ztensor.convert(src, tmp_path / "local" / "model.zt", max_shard_size="40KB", **kwargs)
    before = {p: _tasks_done(client, p) for p in ("encode_on_worker", "write_shard_on_worker")}
    done = []
    remote = ztensor.convert(src, tmp_path / "dask" / "model.zt", max_shard_size="40KB", client=client,
                             progress=lambda d, t: done.append((d, t)), **kwargs)
    shards = len(local.files) - 1
    assert shards > 2
    # One task per shard wrote it, from one encoding task per object; only
    # byte counts came back here (the writer tasks ran on the workers).
    assert _tasks_done(client, "write_shard_on_worker") - before["write_shard_on_worker"] == shards
    assert _tasks_done(client, "encode_on_worker") - before["encode_on_worker"] == len(tensors)
    assert (remote.objects, remote.bytes, remote.warnings, remote.src_format) == \
        (local.objects, local.bytes, local.warnings, local.src_format)
    assert len(done) == shards and done[-1] == (local.bytes, local.bytes)
    assert [os.path.basename(f) for f in remote.files] == [os.path.basename(f) for f in local.files]
    for name in _files_in(tmp_path / "local"):
        assert (tmp_path / "dask" / name).read_bytes() == (tmp_path / "local" / name).read_bytes()
    assert _files_in(tmp_path / "dask") == _files_in(tmp_path / "local")


def test_worker_error_surfaces_with_code_and_nothing_is_published(tmp_path, client):
    src = tmp_path / "in.zt"
    tensors = _model(tmp_path / "in.safetensors")
    ztensor.convert(tmp_path / "in.safetensors", src, checksum="sha256")
    with ztensor.open(src) as r:
        info = r.object("layer5.w").components["data"]
    blob = bytearray(src.read_bytes())
    blob[info.offset + 10] ^= 0xFF  # the client only lists names; the worker reading layer5.w finds it
    src.write_bytes(bytes(blob))
    (tmp_path / "out").mkdir()
    for dst in ("m.zt", "s.zt"):
        with pytest.raises(ztensor.DigestMismatchError) as e:
            ztensor.convert(src, tmp_path / "out" / dst, compression="zstd", client=client,
                            max_shard_size=None if dst == "m.zt" else tensors["layer0.w"].nbytes)
        assert e.value.code == "digest_mismatch"
        assert "layer5.w" in str(e.value)
    assert _files_in(tmp_path / "out") == []  # no output, no temporary, no shard


def test_client_needs_zt_output(tmp_path, client):
    _model(tmp_path / "in.safetensors")
    with pytest.raises(ztensor.ZTensorError) as e:
        ztensor.convert(tmp_path / "in.safetensors", tmp_path / "o.npz", client=client)
    assert e.value.code == "invalid_argument"
    assert not (tmp_path / "o.npz").exists()


class _CountingClient:
    """Forwards to a Client, counting the objects submitted."""

    def __init__(self, client):
        self._client = client
        self.submitted = 0

    def submit(self, *args, **kwargs):
        self.submitted += 1
        return self._client.submit(*args, **kwargs)


def test_in_flight_objects_are_bounded_by_the_window(tmp_path, client, monkeypatch):
    from ztensor import _dask

    monkeypatch.setattr(_dask, "MAX_IN_FLIGHT_OBJECTS", 3)
    src = tmp_path / "in.safetensors"
    tensors = _model(src)
    counting = _CountingClient(client)
    in_flight = []  # after each appended object: submitted and not yet appended
    ztensor.convert(src, tmp_path / "o.zt", compression="zstd", client=counting,
                    progress=lambda done, total: in_flight.append(counting.submitted - len(in_flight) - 1))
    assert counting.submitted == len(tensors)
    assert max(in_flight) == 2  # 3 in flight when each was taken, that one now appended
    assert in_flight[-1] == 0


def test_convert_many_reports_one_failure_and_keeps_the_others(tmp_path, client):
    tensors = _model(tmp_path / "a.safetensors")
    _model(tmp_path / "b.safetensors")
    (tmp_path / "out").mkdir()
    out = tmp_path / "out"
    results = ztensor.convert_many([(tmp_path / "a.safetensors", out / "a.zt"),
                                    (tmp_path / "missing.safetensors", out / "bad.zt"),
                                    (tmp_path / "b.safetensors", out / "b.zt")],
                                   client=client, compression="z4ai")
    assert [type(r).__name__ for r in results] == ["ConvertStats", "ZTensorFileNotFoundError", "ConvertStats"]
    assert results[1].code == "io_error"
    assert results[0].objects == results[2].objects == len(tensors)
    assert _files_in(out) == ["a.zt", "b.zt"]
    ztensor.convert(tmp_path / "b.safetensors", tmp_path / "b_local.zt", compression="z4ai")
    assert (out / "b.zt").read_bytes() == (tmp_path / "b_local.zt").read_bytes()


def test_multi_chunk_tensor_identical_with_one_codec_thread_per_worker(tmp_path, client):
    # Workers encode with one codec thread, the local run with every core:
    # a tensor of several codec chunks (2 MiB each) must still match.
    src = tmp_path / "big.safetensors"
    rng = np.random.default_rng(3)
    ztnp.save_file({"w": (rng.standard_normal(1_600_000) * 0.05).astype(np.float32)}, src)
    ztensor.convert(src, tmp_path / "local.zt", compression="z4ai")
    ztensor.convert(src, tmp_path / "dask.zt", compression="z4ai", client=client)
    assert (tmp_path / "dask.zt").read_bytes() == (tmp_path / "local.zt").read_bytes()


def test_sharded_output_into_a_missing_folder_is_an_io_error_as_locally(tmp_path, client):
    src = tmp_path / "in.safetensors"
    _model(src)
    codes = []
    for kwargs in ({}, {"client": client}):
        with pytest.raises(ztensor.ZTensorError) as e:
            ztensor.convert(src, tmp_path / "missing" / "model.zt", max_shard_size="40KB", **kwargs)
        codes.append(e.value.code)
    assert codes == ["io_error", "io_error"]
    assert _files_in(tmp_path) == ["in.safetensors"]
