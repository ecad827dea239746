"""Lazy reads of .zt files over HTTP against real
loopback servers: nginx for range requests (the bytes it served are read
from its access log, not only the values), and a small http.server handler
for the faults: a server ignoring Range, 503s, a file changing mid-read.
"""

import json
import subprocess

import numpy as np
import pytest

import ztensor
import ztensor.numpy
from _cli import ZT, needs_zt
from _capi import find_libztensor
from _peak import peak_rss_of
from _servers import FaultServer, Nginx

BIG = np.arange(4 << 20, dtype=np.float32)  # 16 MiB: read in concurrent parts
SMALL = np.arange(10, dtype=np.int16)
# Beyond the requested tensor's bytes, opening and reading may fetch the
# probe byte, the header magic, the footer and the manifest: a few hundred
# bytes here, bounded generously (HTTP headers are counted by nginx too).
OVERHEAD_BYTES = 8192


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("www")
    ztensor.numpy.save_file({"big": BIG, "small": SMALL}, str(root / "m.zt"), checksum="sha256")
    server = Nginx(root, tmp_path_factory.mktemp("nginx"))
    yield server
    server.stop()


def served_bytes(server):
    return sum(sent for _, _, _, sent in server.requests())


def component(path, name):
    out = subprocess.run([ZT, "info", "--json", str(path)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["objects"][name]["components"]["data"]


def test_reading_one_small_tensor_fetches_only_its_ranges(served):
    served.clear_log()
    r = ztensor.open(served.url("m.zt"))
    assert r.keys() == ["big", "small"]
    np.testing.assert_array_equal(r.read("small"), SMALL)
    log = served.requests()
    assert log and all(status == 206 and rng.startswith("bytes=") for _, rng, status, _ in log)
    # Open: the size probe (which also brings the magic), the footer, the
    # manifest; then the tensor.
    assert len(log) == 4, log
    size = (served.root / "m.zt").stat().st_size
    assert served_bytes(served) < SMALL.nbytes + OVERHEAD_BYTES < size // 100


@needs_zt
def test_ranges_never_touch_the_unread_tensor(served):
    big = component(served.root / "m.zt", "big")
    served.clear_log()
    np.testing.assert_array_equal(ztensor.open(served.url("m.zt")).read("small"), SMALL)
    for _, rng, _, _ in served.requests():
        first, last = map(int, rng[len("bytes="):].split("-"))
        assert last < big["offset"] or first >= big["offset"] + big["length"], rng


def test_large_component_read_in_concurrent_parts(served):
    served.clear_log()
    np.testing.assert_array_equal(ztensor.open(served.url("m.zt")).read("big"), BIG)
    big_parts = [rng for _, rng, _, sent in served.requests() if sent > 1 << 20]
    assert len(big_parts) >= 2
    # Everything served once: no whole-file GET, no range fetched twice.
    assert served_bytes(served) < BIG.nbytes + OVERHEAD_BYTES


@needs_zt
def test_cli_reads_urls(served, tmp_path):
    url = served.url("m.zt")
    for cmd in (["ls", url], ["info", url], ["verify", url]):
        out = subprocess.run([ZT, *cmd], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
    assert "big" in subprocess.run([ZT, "ls", url], capture_output=True, text=True).stdout
    dst = tmp_path / "m.safetensors"
    out = subprocess.run([ZT, "convert", url, str(dst)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    from safetensors.numpy import load_file

    got = load_file(str(dst))
    np.testing.assert_array_equal(got["big"], BIG)
    np.testing.assert_array_equal(got["small"], SMALL)


def test_missing_file_is_an_io_error(served):
    with pytest.raises(ztensor.errors.ZTensorIOError, match="HTTP 404"):
        ztensor.open(served.url("absent.zt"))


def test_remote_formats_not_read_lazily_yet_are_refused_clearly(served):
    with pytest.raises(ztensor.errors.UnsupportedError, match="from a URL is not supported yet"):
        ztensor.open(served.url("m.npz"))


def test_gguf_url_with_a_large_header_reads_it_then_one_tensor(tmp_path):
    import gguf

    root = tmp_path / "www"
    root.mkdir()
    tokens = [f"token-{i:06d}-" + "x" * 20 for i in range(100_000)]  # ~3.5 MB: several header reads
    w = gguf.GGUFWriter(str(root / "m.gguf"), arch="ztest")
    w.add_array("tokenizer.ggml.tokens", tokens)
    w.add_tensor("big", BIG)
    w.add_tensor("small", SMALL.astype(np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    size = (root / "m.gguf").stat().st_size
    server = Nginx(root, tmp_path)
    try:
        r = ztensor.open(server.url("m.gguf"))
        assert r.format == "gguf" and sorted(r.keys()) == ["big", "small"]
        np.testing.assert_array_equal(r.read("small"), SMALL.astype(np.float32))
        header = size - BIG.nbytes - SMALL.nbytes * 2
        # The header in growing prefixes (each byte once; the last may run
        # a little past it), then the tensor: never the 16 MiB one.
        assert served_bytes(server) < 2 * header + 16 * OVERHEAD_BYTES < size // 2
        assert all(status == 206 for _, _, status, _ in server.requests())
        np.testing.assert_array_equal(r.read("big"), BIG)
    finally:
        server.stop()


def test_npy_url_fetches_the_header_then_the_data(tmp_path):
    root = tmp_path / "www"
    root.mkdir()
    arr = np.asfortranarray(np.arange(256 * 1024, dtype=np.float64).reshape(512, 512))
    np.save(root / "a.npy", arr)
    server = Nginx(root, tmp_path)
    try:
        r = ztensor.open(server.url("a.npy"))
        assert r.keys() == ["a"]
        assert served_bytes(server) < OVERHEAD_BYTES + 12 + 10000  # prelude + numpy's header cap
        np.testing.assert_array_equal(r.read("a"), arr)
        assert served_bytes(server) < arr.nbytes + 2 * OVERHEAD_BYTES + 10000
    finally:
        server.stop()


@pytest.fixture(scope="module")
def served_safetensors(tmp_path_factory):
    from safetensors.numpy import save_file

    root = tmp_path_factory.mktemp("www_st")
    save_file({"big": BIG, "small": SMALL}, str(root / "m.safetensors"), metadata={"k": "v"})
    server = Nginx(root, tmp_path_factory.mktemp("nginx_st"))
    yield server
    server.stop()


def test_safetensors_url_reads_header_then_only_the_tensor(served_safetensors):
    server = served_safetensors
    r = ztensor.open(server.url("m.safetensors"))
    assert sorted(r.keys()) == ["big", "small"]
    np.testing.assert_array_equal(r.read("small"), SMALL)
    size = (server.root / "m.safetensors").stat().st_size
    assert all(status == 206 for _, _, status, _ in server.requests())
    assert served_bytes(server) < SMALL.nbytes + OVERHEAD_BYTES < size // 100
    np.testing.assert_array_equal(r.read("big"), BIG)


@needs_zt
def test_cli_converts_a_safetensors_url_to_zt(served_safetensors, tmp_path):
    dst = tmp_path / "m.zt"
    out = subprocess.run([ZT, "convert", served_safetensors.url("m.safetensors"), str(dst)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    got = ztensor.numpy.load_file(str(dst))
    np.testing.assert_array_equal(got["big"], BIG)
    np.testing.assert_array_equal(got["small"], SMALL)


@needs_zt
def test_digest_checked_on_every_remote_read(tmp_path):
    root = tmp_path / "www"
    root.mkdir()
    path = root / "bad.zt"
    ztensor.numpy.save_file({"small": SMALL}, str(path), checksum="sha256")
    data = bytearray(path.read_bytes())
    data[component(path, "small")["offset"]] ^= 0xFF
    path.write_bytes(bytes(data))
    ztensor.open(str(path)).read("small")  # locally, unchecked unless asked
    server = Nginx(root, tmp_path)
    try:
        with pytest.raises(ztensor.errors.DigestMismatchError):
            ztensor.open(server.url("bad.zt")).read("small")
    finally:
        server.stop()


@pytest.fixture
def fault(tmp_path):
    path = tmp_path / "f.zt"
    ztensor.numpy.save_file({"small": SMALL}, str(path))
    server = FaultServer("f.zt", path.read_bytes())
    yield server
    server.stop()


def test_server_ignoring_range_is_refused(fault):
    fault.ignore_range = True
    with pytest.raises(ztensor.errors.UnsupportedError, match="ignores Range"):
        ztensor.open(fault.url())
    assert fault.served == 1  # not retried: the whole body is never wanted


def test_one_503_is_retried(fault):
    fault.fail_first = 1
    np.testing.assert_array_equal(ztensor.open(fault.url()).read("small"), SMALL)


def test_connection_dropped_mid_body_is_retried(fault):
    r = ztensor.open(fault.url())
    before = fault.served
    fault.drop_first = 1
    np.testing.assert_array_equal(r.read("small"), SMALL)
    assert fault.served == before + 2  # the dropped reply, then the retry


def test_retries_are_bounded(fault):
    fault.fail_first = 100
    with pytest.raises(ztensor.errors.ZTensorIOError, match="HTTP 503 .gave up after 5 attempts"):
        ztensor.open(fault.url())
    assert fault.served == 5


def test_redirects_are_followed_to_http_only(fault):
    moved = fault.url().rsplit("/", 1)[0] + "/moved"
    np.testing.assert_array_equal(ztensor.open(moved).read("small"), SMALL)  # no extension: sniffed
    fault.moved_to = "file:///etc/hostname"
    with pytest.raises(ztensor.errors.ZTensorIOError, match="redirect to 'file:.*' refused: only http and https"):
        ztensor.open(moved)


def test_wrong_content_range_is_refused(fault):
    r = ztensor.open(fault.url())
    fault.shift_range = 1
    with pytest.raises(ztensor.errors.UnsupportedError, match="answered bytes .* with 'bytes"):
        r.read("small")


def test_file_growing_between_requests_is_an_error(fault):
    r = ztensor.open(fault.url())
    fault.grow_after = fault.served
    with pytest.raises(ztensor.errors.FormatError, match="changed size while being read"):
        r.read("small")


def test_file_changing_between_requests_is_an_error(fault):
    r = ztensor.open(fault.url())
    fault.change_etag_after = fault.served  # every later reply carries a new ETag
    with pytest.raises(ztensor.errors.FormatError, match="changed while being read"):
        r.read("small")


def test_numpy_and_torch_load_file_from_a_url(served):
    import torch

    import ztensor.torch

    got = ztensor.numpy.load_file(served.url("m.zt"))
    np.testing.assert_array_equal(got["small"], SMALL)
    t = ztensor.torch.load_file(served.url("m.zt"))
    assert torch.equal(t["small"], torch.from_numpy(SMALL))
    assert torch.equal(t["big"], torch.from_numpy(BIG))


@pytest.fixture(scope="module")
def served_sets(tmp_path_factory):
    """A sharded .zt set and a sharded safetensors model, one tensor a shard."""
    from safetensors.numpy import save_file

    root = tmp_path_factory.mktemp("www_sets")
    ztensor.numpy.save_file({"big": BIG, "small": SMALL}, str(root / "z.zt"), max_shard_size=BIG.nbytes)
    weight_map = {}
    for i, (name, arr) in enumerate((("big", BIG), ("small", SMALL)), 1):
        shard = f"model-0000{i}-of-00002.safetensors"
        save_file({name: arr}, str(root / shard))
        weight_map[name] = shard
    index = {"metadata": {"total_size": BIG.nbytes + SMALL.nbytes}, "weight_map": weight_map}
    (root / "model.safetensors.index.json").write_text(json.dumps(index))
    server = Nginx(root, tmp_path_factory.mktemp("nginx_sets"))
    yield server
    server.stop()


@pytest.mark.parametrize("index", ["z.zt.index.json", "model.safetensors.index.json"])
def test_sharded_index_url_reads_one_tensor_lazily(served_sets, index):
    served_sets.clear_log()
    r = ztensor.open(served_sets.url(index))
    assert sorted(r.keys()) == ["big", "small"]
    np.testing.assert_array_equal(r.read("small"), SMALL)
    # The index is read whole; of the shards only headers and the tensor.
    assert served_bytes(served_sets) < SMALL.nbytes + 3 * OVERHEAD_BYTES < BIG.nbytes // 100
    np.testing.assert_array_equal(r.read("big"), BIG)


@needs_zt
def test_cli_lists_a_remote_sharded_set(served_sets):
    out = subprocess.run([ZT, "ls", served_sets.url("z.zt.index.json")], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "big" in out.stdout and "small" in out.stdout


@pytest.mark.skipif(find_libztensor() is None, reason="libztensor.so not built (or set ZT_LIB)")
def test_c_api_opens_a_url(served):
    import ctypes

    lib = ctypes.CDLL(find_libztensor())
    lib.zt_reader_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_void_p)]
    lib.zt_reader_count.argtypes = [ctypes.c_void_p]
    lib.zt_reader_count.restype = ctypes.c_size_t
    lib.zt_reader_read.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p),
                                   ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_void_p)]
    lib.zt_reader_close.argtypes = [ctypes.c_void_p]
    lib.zt_buffer_free.argtypes = [ctypes.c_void_p]
    lib.zt_last_error.restype = ctypes.c_char_p
    reader = ctypes.c_void_p()
    assert lib.zt_reader_open(served.url("m.zt").encode(), 0, ctypes.byref(reader)) == 0, lib.zt_last_error()
    try:
        assert lib.zt_reader_count(reader) == 2
        data, length, keep = ctypes.c_void_p(), ctypes.c_uint64(), ctypes.c_void_p()
        assert lib.zt_reader_read(reader, b"small", b"data", ctypes.byref(data), ctypes.byref(length),
                                  ctypes.byref(keep)) == 0, lib.zt_last_error()
        np.testing.assert_array_equal(np.frombuffer(ctypes.string_at(data, length.value), np.int16), SMALL)
        lib.zt_buffer_free(keep)
    finally:
        lib.zt_reader_close(reader)


@needs_zt
def test_fsspec_url_reads_only_the_requested_ranges(tmp_path, monkeypatch):
    import fsspec
    from fsspec.implementations.memory import MemoryFileSystem

    path = tmp_path / "m.zt"
    ztensor.numpy.save_file({"big": BIG, "small": SMALL}, str(path), checksum="sha256")
    ranges = []
    cat_file = MemoryFileSystem.cat_file

    def counting_cat_file(self, p, start=None, end=None, **kw):
        ranges.append((start, end))
        return cat_file(self, p, start=start, end=end, **kw)

    monkeypatch.setattr(MemoryFileSystem, "cat_file", counting_cat_file)
    url = f"memory://ztensor-test-{id(ranges)}/m.zt"
    fs, key = fsspec.core.url_to_fs(url)
    fs.pipe_file(key, path.read_bytes())
    try:
        r = ztensor.open(url)
        np.testing.assert_array_equal(r.read("small"), SMALL)
        assert sum(e - s for s, e in ranges) < SMALL.nbytes + OVERHEAD_BYTES < path.stat().st_size // 100
        np.testing.assert_array_equal(r.read("big"), BIG)
        # Changed in place under the reader, keeping its size and creation time (the validators the
        # memory filesystem gives, so the version pin cannot see it): remote digests are always checked.
        big = component(path, "big")
        fs.store[key].getbuffer()[big["offset"] + 7] ^= 0xFF
        with pytest.raises(ztensor.errors.DigestMismatchError):
            r.read("big")
    finally:
        fs.rm(key)


def test_fsspec_file_url_of_a_zt_file(tmp_path):
    path = tmp_path / "m.zt"
    ztensor.numpy.save_file({"small": SMALL}, str(path))
    np.testing.assert_array_equal(ztensor.open(path.as_uri()).read("small"), SMALL)


@needs_zt
def test_cli_convert_of_a_url_keeps_memory_bounded(tmp_path):
    """zt convert URL out.zt streams object by object: its peak RSS stays
    far below the file (no local copy of the input, none of the output)."""
    root = tmp_path / "www"
    root.mkdir()
    part = np.arange(1 << 20, dtype=np.float32)  # 4 MiB each, 128 MiB in all
    ztensor.numpy.save_file({f"t{i:02d}": part + i for i in range(32)}, str(root / "m.zt"))
    size = (root / "m.zt").stat().st_size
    server = Nginx(root, tmp_path)
    try:
        rc, peak, err, _ = peak_rss_of([ZT, "convert", server.url("m.zt"), tmp_path / "o.zt"])
        assert rc == 0, err
        assert peak < size // 4, f"peak RSS {peak} for a {size}-byte file"
    finally:
        server.stop()
    got = ztensor.open(str(tmp_path / "o.zt"))
    np.testing.assert_array_equal(got.read("t31"), part + 31)


def test_fsspec_url_of_safetensors_and_npy(tmp_path):
    import fsspec
    from safetensors.numpy import save as st_save

    fs = fsspec.filesystem("memory")
    base = f"/ztensor-test-{id(tmp_path)}"
    fs.pipe_file(base + "/m.safetensors", st_save({"big": BIG, "small": SMALL}))
    arr = np.arange(12, dtype=np.int32).reshape(3, 4)
    np.save(tmp_path / "a.npy", arr)
    fs.pipe_file(base + "/a.npy", (tmp_path / "a.npy").read_bytes())
    try:
        r = ztensor.open(f"memory://{base}/m.safetensors")
        assert r.format == "safetensors"
        np.testing.assert_array_equal(r.read("small"), SMALL)
        np.testing.assert_array_equal(r.read("big"), BIG)
        np.testing.assert_array_equal(ztensor.open(f"memory://{base}/a.npy").read("a"), arr)
        import torch
        from ztensor.torch import load_file as torch_load_file

        got = ztensor.numpy.load_file(f"memory://{base}/m.safetensors")
        np.testing.assert_array_equal(got["small"], SMALL)
        t = torch_load_file(f"memory://{base}/m.safetensors")
        assert torch.equal(t["big"], torch.from_numpy(BIG))
        fs.pipe_file(base + "/x.npz", b"PK\x05\x06" + bytes(18))
        with pytest.raises(ztensor.errors.UnsupportedError, match="from a URL is not supported yet"):
            ztensor.open(f"memory://{base}/x.npz")
    finally:
        fs.rm(base, recursive=True)


@pytest.fixture
def moto_s3(tmp_path, monkeypatch):
    """moto's S3 server on loopback, with s3fs (through fsspec) pointed at it."""
    import fsspec
    import s3fs

    from _servers import MotoS3

    server = MotoS3(tmp_path)
    for k, v in (("AWS_ACCESS_KEY_ID", "test"), ("AWS_SECRET_ACCESS_KEY", "test"),
                 ("AWS_DEFAULT_REGION", "us-east-1"), ("AWS_ENDPOINT_URL", server.endpoint)):
        monkeypatch.setenv(k, v)
    fsspec.config.conf.pop("s3", None)
    s3fs.S3FileSystem.clear_instance_cache()  # an earlier test's instance points at its own (stopped) server
    yield server
    server.stop()


def test_s3_url_through_fsspec_against_moto(tmp_path, moto_s3):
    import boto3

    server = moto_s3
    path = tmp_path / "m.zt"
    ztensor.numpy.save_file({"big": BIG, "small": SMALL}, str(path), checksum="sha256")
    s3 = boto3.client("s3", endpoint_url=server.endpoint)
    s3.create_bucket(Bucket="models")
    s3.upload_file(str(path), "models", "m.zt")
    before = len(server.requests())
    r = ztensor.open("s3://models/m.zt")
    np.testing.assert_array_equal(r.read("small"), SMALL)
    gets = [(line, status) for line, status in server.requests()[before:] if line.startswith("GET /models/m.zt")]
    assert gets and all(status == 206 for _, status in gets)  # every object read was a range
    np.testing.assert_array_equal(r.read("big"), BIG)


@needs_zt
def test_cli_info_and_compress_report_the_remote_size(served_safetensors, tmp_path):
    url = served_safetensors.url("m.safetensors")
    size = (served_safetensors.root / "m.safetensors").stat().st_size
    out = subprocess.run([ZT, "info", "--json", url], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["file_size"] == size
    out = subprocess.run([ZT, "compress", url, str(tmp_path / "c.zt"), "--json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["input_bytes"] == size
    np.testing.assert_array_equal(ztensor.open(str(tmp_path / "c.zt")).read("small"), SMALL)


def test_file_shorter_than_the_probe_is_read_whole(served):
    (served.root / "tiny.zt").write_bytes(b"ZTEN1")
    (served.root / "empty.zt").write_bytes(b"")  # nginx: 200 with no body
    for name in ("tiny.zt", "empty.zt"):
        with pytest.raises(ztensor.errors.FormatError, match="does not start with ZTEN1000"):
            ztensor.open(served.url(name))


@pytest.fixture(scope="module")
def served_embedding(tmp_path_factory):
    root = tmp_path_factory.mktemp("www-emb")
    emb = np.arange(4096 * 256, dtype=np.float32).reshape(4096, 256)  # 4 MiB, 1 KiB rows, no digest
    ztensor.numpy.save_file({"emb": emb}, str(root / "e.zt"))
    from safetensors.numpy import save_file
    save_file({"emb": emb}, str(root / "e.safetensors"))
    server = Nginx(root, tmp_path_factory.mktemp("nginx-emb"))
    yield server, emb
    server.stop()


@pytest.mark.parametrize("name", ["e.zt", "e.safetensors"])
@pytest.mark.parametrize("framework", ["numpy", "torch"])
def test_get_slice_of_a_url_fetches_only_the_rows(served_embedding, name, framework):
    server, emb = served_embedding
    r = ztensor.open(server.url(name))
    server.clear_log()
    s = r.get_slice("emb", framework)
    rows = s[1000:1010]
    np.testing.assert_array_equal(np.asarray(rows), emb[1000:1010])
    np.testing.assert_array_equal(np.asarray(s[-3, 5:9]), emb[-3, 5:9])
    np.testing.assert_array_equal(np.asarray(s[20:2:-7, ::3]), emb[20:2:-7, ::3])
    with ztensor.open(server.root / name) as local:  # where the tensor's bytes sit in the file
        _, _, _, _, _, start, length, _ = local._r.index()[0]
    # One range per index, inside the tensor, each no larger than its rows
    # (+ HTTP headers); the whole 4 MiB tensor was fetched before.
    log = server.requests()
    assert len(log) == 3, log
    for _, rng, _, _ in log:
        first, last = map(int, rng[len("bytes="):].split("-"))
        assert first >= start and last < start + length, log
    assert sum(sent for _, _, _, sent in log) < (10 + 1 + 15) * 1024 + 3 * 1024, log


@pytest.fixture(scope="module")
def served_tls(tmp_path_factory):
    from _servers import make_tls_cert

    root = tmp_path_factory.mktemp("www-tls")
    ztensor.numpy.save_file({"big": BIG, "small": SMALL}, str(root / "m.zt"), checksum="sha256")
    ca, cert, key = make_tls_cert(tmp_path_factory.mktemp("tls"))
    server = Nginx(root, tmp_path_factory.mktemp("nginx-tls"), tls=(cert, key))
    yield server, ca
    server.stop()


def test_https_url_with_the_ca_given_by_zt_ca_bundle(served_tls, monkeypatch):
    server, ca = served_tls
    monkeypatch.delenv("CURL_CA_BUNDLE", raising=False)
    monkeypatch.setenv("ZT_CA_BUNDLE", str(ca))
    server.clear_log()
    with ztensor.open(server.url("m.zt")) as r:
        np.testing.assert_array_equal(r.read("small"), SMALL)
    log = server.requests()
    assert log and all(status == 206 for _, _, status, _ in log), log
    assert served_bytes(server) < OVERHEAD_BYTES + SMALL.nbytes


@needs_zt
def test_cli_reads_https_with_curl_ca_bundle(served_tls, monkeypatch):
    server, ca = served_tls
    env = {k: v for k, v in __import__("os").environ.items() if k != "ZT_CA_BUNDLE"}
    env["CURL_CA_BUNDLE"] = str(ca)
    out = subprocess.run([ZT, "ls", server.url("m.zt")], capture_output=True, text=True, env=env)
    assert out.returncode == 0 and "small" in out.stdout, out.stderr


def test_untrusted_certificate_is_refused_clearly(served_tls, monkeypatch):
    server, _ = served_tls
    monkeypatch.delenv("ZT_CA_BUNDLE", raising=False)
    monkeypatch.delenv("CURL_CA_BUNDLE", raising=False)
    server.clear_log()
    with pytest.raises(ztensor.ZTensorIOError) as e:
        ztensor.open(server.url("m.zt"))
    assert e.value.code == "io_error"
    assert "certificate" in str(e.value) and "ZT_CA_BUNDLE" in str(e.value), str(e.value)
    assert server.requests() == []  # refused in the handshake: no request reached nginx


def test_s3_sharded_indexes_through_fsspec_against_moto(tmp_path, moto_s3):
    import boto3
    from safetensors.numpy import save_file as st_save

    server = moto_s3
    tensors = {f"w{i}": np.full(256, i, np.float32) for i in range(4)}
    local = tmp_path / "set"
    local.mkdir()
    ztensor.numpy.save_file(tensors, str(local / "model.zt"), max_shard_size=2100)  # 2 tensors a shard
    st_save(tensors, str(local / "st-00001-of-00001.safetensors"))
    (local / "st.safetensors.index.json").write_text(json.dumps(
        {"metadata": {"total_size": 4096}, "weight_map": {k: "st-00001-of-00001.safetensors" for k in tensors}}))
    s3 = boto3.client("s3", endpoint_url=server.endpoint)
    s3.create_bucket(Bucket="models")
    for p in local.iterdir():
        s3.upload_file(str(p), "models", p.name)
    for index, fmt in (("model.zt.index.json", "zt_index"), ("st.safetensors.index.json", "safetensors")):
        before = len(server.requests())
        with ztensor.open(f"s3://models/{index}") as r:
            assert r.format == fmt and sorted(r.keys()) == sorted(tensors)
            np.testing.assert_array_equal(r.read("w3"), tensors["w3"])
        gets = [line for line, _ in server.requests()[before:] if line.startswith("GET /models/")]
        assert any(index in g for g in gets), gets
    loaded = ztensor.numpy.load_file("s3://models/model.zt.index.json")
    assert sorted(loaded) == sorted(tensors)
