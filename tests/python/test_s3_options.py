"""Object stores through fsspec with storage_options: every entry point that
takes a path takes an s3:// URL with explicit options (endpoint and keys, no
environment), convert reads from and writes to the store, and every failure
is a coded ztensor error with a one-line message. moto's S3 server on
loopback is the store."""

import io
import socket

import numpy as np
import pytest

import ztensor
import ztensor.numpy as ztnp
from _stores import assert_one_line_error, clear_aws_environment, keys, s3, small_model, upload  # noqa: F401

pytest.importorskip("s3fs")
torch = pytest.importorskip("torch")

# botocore: one attempt, short timeouts (the failures tested need not wait for its retries).
FAST_FAIL = {"config_kwargs": {"retries": {"max_attempts": 1}, "connect_timeout": 2, "read_timeout": 2}}


@pytest.fixture(scope="module")
def models(s3, tmp_path_factory):
    """Bucket "models" holding m.zt (zstd, sha256), m.safetensors, a sharded
    .zt set and a torch module's model.zt."""
    server, _ = s3
    folder = tmp_path_factory.mktemp("models")
    tensors = small_model()
    ztnp.save_file(tensors, str(folder / "m.zt"), compression="zstd", checksum="sha256")
    from safetensors.numpy import save_file as st_save

    st_save(tensors, str(folder / "m.safetensors"))
    ztnp.save_file(tensors, str(folder / "set.zt"), max_shard_size="4KB")
    model = torch.nn.Sequential(torch.nn.Linear(16, 8), torch.nn.Linear(8, 4))
    ztensor.torch.save_model(model, str(folder / "model.zt"))
    client = server.bucket("models")
    for path in folder.iterdir():
        upload(client, "models", path.name, path)
    return _Models(tensors, folder=folder, module=model)


class _Models(dict):
    """The tensors, plus the local folder they were uploaded from and the torch module in model.zt."""

    def __init__(self, tensors, folder, module):
        super().__init__(tensors)
        self.folder, self.module = folder, module


def _equal(got, tensors):
    assert sorted(got) == sorted(tensors)
    for name, t in tensors.items():
        np.testing.assert_array_equal(np.asarray(got[name]), t)


@pytest.mark.parametrize("key", ["m.zt", "m.safetensors", "set.zt.index.json"])
def test_every_reader_takes_storage_options(s3, models, key):
    _, options = s3
    url = f"s3://models/{key}"
    with ztensor.open(url, storage_options=options) as r:
        _equal({n: r.read(n) for n in r.keys()}, models)
    _equal(ztnp.load_file(url, storage_options=options), models)
    _equal({k: v.numpy() for k, v in ztensor.torch.load_file(url, storage_options=options).items()}, models)
    for framework in ("np", "pt"):
        with ztensor.safe_open(url, framework, storage_options=options) as f:
            _equal({n: np.asarray(f.get_tensor(n)) for n in f.keys()}, models)


def test_load_model_from_s3(s3, models):
    _, options = s3
    model = torch.nn.Sequential(torch.nn.Linear(16, 8), torch.nn.Linear(8, 4))
    assert ztensor.torch.load_model(model, "s3://models/model.zt", storage_options=options) == ([], [])
    for got, want in zip(model.state_dict().values(), models.module.state_dict().values()):
        assert torch.equal(got, want)


def test_without_credentials_in_the_options_nothing_is_found(s3, models):
    # The environment holds no credentials: the key and secret above are what made it work. (The
    # endpoint is a closed loopback port, so nothing could leave loopback even if a request were sent.)
    with pytest.raises(PermissionError) as e:
        ztensor.open("s3://models/m.zt", storage_options={"endpoint_url": f"http://127.0.0.1:{_closed_port()}",
                                                          "client_kwargs": {"region_name": "us-east-1"}, **FAST_FAIL})
    assert_one_line_error(e.value, "io_error")
    assert "no credentials" in str(e.value)


@pytest.mark.parametrize("key", ["m.zt", "m.safetensors", "set.zt.index.json"])
@pytest.mark.parametrize("compression", [None, "zstd", "z4ai"])
def test_convert_from_s3(s3, models, tmp_path, key, compression):
    _, options = s3
    stats = ztensor.convert(f"s3://models/{key}", tmp_path / "out.zt", compression=compression,
                            storage_options=options)
    assert stats.objects == len(models)
    with ztensor.open(tmp_path / "out.zt", verify=True) as r:
        _equal({n: r.read(n) for n in r.keys()}, models)


def test_convert_to_s3_single_file(s3, models, tmp_path):
    server, options = s3
    client = server.bucket("out-single")
    stats = ztensor.convert("s3://models/m.safetensors", "s3://out-single/m.zt", compression="zstd",
                            checksum="sha256", storage_options=options)
    assert stats.files == ["s3://out-single/m.zt"]
    assert keys(client, "out-single") == ["m.zt"]  # no temporary left beside it
    local = tmp_path / "local.zt"
    ztensor.convert(models.folder / "m.safetensors", local, compression="zstd", checksum="sha256")
    body = client.get_object(Bucket="out-single", Key="m.zt")["Body"].read()
    assert body == local.read_bytes()  # the same bytes a local convert writes


@pytest.mark.parametrize("dst_ext", [".safetensors", ".npz"])
def test_convert_to_s3_other_formats(s3, models, dst_ext):
    server, options = s3
    client = server.bucket(f"out{dst_ext[1:]}")
    url = f"s3://out{dst_ext[1:]}/m{dst_ext}"
    stats = ztensor.convert("s3://models/m.zt", url, storage_options=options)
    assert stats.files == [url]
    assert keys(client, f"out{dst_ext[1:]}") == [f"m{dst_ext}"]
    body = client.get_object(Bucket=f"out{dst_ext[1:]}", Key=f"m{dst_ext}")["Body"].read()
    from safetensors.numpy import load as st_load

    _equal(st_load(body) if dst_ext == ".safetensors" else dict(np.load(io.BytesIO(body))), models)


def test_convert_to_s3_sharded(s3, models, tmp_path):
    server, options = s3
    client = server.bucket("out-sharded")
    stats = ztensor.convert("s3://models/m.zt", "s3://out-sharded/deep/model.zt", max_shard_size="4KB",
                            storage_options=options)
    shards = [f for f in stats.files if not f.endswith(".json")]
    assert len(shards) > 2 and stats.files[-1] == "s3://out-sharded/deep/model.zt.index.json"
    assert keys(client, "out-sharded") == sorted(f[len("s3://out-sharded/"):] for f in stats.files)
    with ztensor.open("s3://out-sharded/deep/model.zt.index.json", storage_options=options) as r:
        assert r.format == "zt_index"
        _equal({n: r.read(n) for n in r.keys()}, models)


def test_failed_convert_to_s3_leaves_no_object(s3, models):
    server, options = s3
    client = server.bucket("out-failed")

    def stop(done, total):
        if done > total // 2:
            raise KeyboardInterrupt  # the caller's Ctrl-C half-way

    for dst, kwargs in (("s3://out-failed/m.zt", {}), ("s3://out-failed/set.zt", {"max_shard_size": "4KB"})):
        with pytest.raises(KeyboardInterrupt):
            ztensor.convert("s3://models/m.zt", dst, progress=stop, storage_options=options, **kwargs)
    from safetensors.torch import save as st_bytes

    client.put_object(Bucket="out-failed", Key="in/bf16.safetensors",
                      Body=st_bytes({"a": torch.ones(4), "b": torch.ones(4, dtype=torch.bfloat16)}))
    with pytest.raises(ztensor.UnsupportedError):  # bf16 has no numpy type: .npz cannot hold it
        ztensor.convert("s3://out-failed/in/bf16.safetensors", "s3://out-failed/m.npz", storage_options=options)
    assert keys(client, "out-failed") == ["in/bf16.safetensors"]


def test_convert_many_between_stores(s3, models):
    server, options = s3
    client = server.bucket("out-many")
    results = ztensor.convert_many([("s3://models/m.zt", "s3://out-many/a.zt"),
                                    ("s3://models/absent.zt", "s3://out-many/b.zt"),
                                    ("s3://models/m.safetensors", "s3://out-many/c.zt")],
                                   compression="zstd", storage_options=options)
    assert [type(r).__name__ for r in results] == ["ConvertStats", "ZTensorFileNotFoundError", "ConvertStats"]
    assert isinstance(results[1], FileNotFoundError)
    assert_one_line_error(results[1], "io_error")
    assert keys(client, "out-many") == ["a.zt", "c.zt"]


def test_dst_storage_options_apply_to_the_destination(s3, models, tmp_path):
    server, options = s3
    server.bucket("out-dst-options")
    wrong = {**options, **FAST_FAIL, "endpoint_url": f"http://127.0.0.1:{_closed_port()}"}
    with pytest.raises(ztensor.ZTensorIOError):
        ztensor.convert("s3://models/m.zt", "s3://out-dst-options/m.zt", storage_options=options,
                        dst_storage_options=wrong)
    ztensor.convert(models.folder / "m.zt", "s3://out-dst-options/m.zt", dst_storage_options=options)
    _equal(ztnp.load_file("s3://out-dst-options/m.zt", storage_options=options), models)


def _closed_port():
    """A loopback port nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- errors: coded, one line, the store's exception chained -----------------




def _entry_points(url, options):
    """Each way in, as a callable that reads `url`."""
    return {
        "open": lambda: ztensor.open(url, storage_options=options),
        "numpy.load_file": lambda: ztnp.load_file(url, storage_options=options),
        "torch.load_file": lambda: ztensor.torch.load_file(url, storage_options=options),
        "safe_open": lambda: ztensor.safe_open(url, "np", storage_options=options),
        "convert": lambda: ztensor.convert(url, "/nonexistent-dir/never.zt", storage_options=options),
    }


@pytest.mark.parametrize("entry", ["open", "numpy.load_file", "torch.load_file", "safe_open", "convert"])
def test_unreachable_endpoint_is_one_coded_line(s3, entry):
    _, options = s3
    options = {**options, **FAST_FAIL, "endpoint_url": f"http://127.0.0.1:{_closed_port()}"}
    with pytest.raises(ztensor.ZTensorIOError) as e:
        _entry_points("s3://models/m.zt", options)[entry]()
    assert_one_line_error(e.value, "io_error")
    assert "cannot reach the store's endpoint" in str(e.value) and "s3://models/m.zt" in str(e.value)
    assert e.value.__cause__ is not None  # the store's own exception, for its traceback


@pytest.mark.parametrize("entry", ["open", "numpy.load_file", "torch.load_file", "safe_open", "convert"])
@pytest.mark.parametrize("url", ["s3://no-such-bucket/m.zt", "s3://models/no-such-key.zt",
                                 "s3://models/no-such-index.zt.index.json"])
def test_missing_bucket_or_key_is_file_not_found(s3, models, entry, url):
    _, options = s3
    with pytest.raises(FileNotFoundError) as e:
        _entry_points(url, options)[entry]()
    assert_one_line_error(e.value, "io_error")
    assert isinstance(e.value, ztensor.ZTensorFileNotFoundError) and url in str(e.value)


def test_missing_shard_behind_an_index_is_file_not_found(s3, models, tmp_path):
    server, options = s3
    client = server.bucket("broken-set")
    ztnp.save_file(models, str(tmp_path / "set.zt"), max_shard_size="4KB")
    for path in tmp_path.iterdir():
        if not path.name.endswith("00002-of-" + path.name.split("-of-")[-1]) or "index" in path.name:
            upload(client, "broken-set", path.name, path)
    with pytest.raises(FileNotFoundError) as e:
        ztensor.open("s3://broken-set/set.zt.index.json", storage_options=options)
    assert_one_line_error(e.value, "io_error")
    assert "00002-of-" in str(e.value)
    assert e.value.__cause__ is not None  # kept on its way through the core's index reader


def test_access_denied_is_permission_error(tmp_path, monkeypatch):
    from _servers import MotoS3

    clear_aws_environment(monkeypatch, tmp_path)
    # moto checks credentials after the first three requests (the fixture's startup sentinel, the
    # bucket, the object), as S3 always does.
    server = MotoS3(tmp_path, env={"INITIAL_NO_AUTH_ACTION_COUNT": "3"})
    try:
        client = server.bucket("private")
        client.put_object(Bucket="private", Key="m.zt", Body=ztnp.save({"w": np.ones(4, np.float32)}))
        for entry, call in _entry_points("s3://private/m.zt", server.storage_options(**FAST_FAIL)).items():
            with pytest.raises(PermissionError) as e:
                call()
            assert_one_line_error(e.value, "io_error")
            assert isinstance(e.value, ztensor.ZTensorPermissionError), entry
    finally:
        server.stop()


def test_silent_endpoint_times_out_in_one_coded_line(s3):
    _, options = s3
    with socket.socket() as silent:  # accepts connections (the kernel's backlog) and never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        options = {**options, **FAST_FAIL, "endpoint_url": f"http://127.0.0.1:{silent.getsockname()[1]}"}
        with pytest.raises(ztensor.ZTensorIOError) as e:
            ztensor.open("s3://models/m.zt", storage_options=options)
    assert_one_line_error(e.value, "io_error")
    assert "did not answer in time" in str(e.value)


def test_bad_storage_options_are_invalid_argument(s3):
    _, options = s3
    for bad in (["key"], "key=x", {**options, "no_such_option": 1}):
        with pytest.raises(ztensor.ZTensorError) as e:
            ztensor.open("s3://models/m.zt", storage_options=bad)
        assert_one_line_error(e.value, "invalid_argument")
    with pytest.raises(ztensor.UnsupportedError) as e:
        ztensor.open("nosuchscheme://bucket/m.zt")
    assert_one_line_error(e.value, "unsupported")
