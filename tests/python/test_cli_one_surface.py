"""`zt convert` and `zt compress` take every option ztensor.convert takes:
z4ai with its effort, the level, the checksum, shards (--max-shard-size)
and, for URL inputs, the remote options a caller sets per call. The file
`zt` writes is the file Python writes for the same options, byte for byte.
URL inputs run against real loopback servers (FaultServer, moto's S3)."""

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import safetensors.numpy
import ztensor
import ztensor.numpy
from _cli import ZT, needs_zt
from _servers import FaultServer
from _stores import small_model

pytestmark = needs_zt
HANG_SECONDS = 120
# Shards of at most this many tensor bytes: small_model() makes several.
SHARD = "4KB"


def zt(*args, env=None):
    return subprocess.run([ZT, *map(str, args)], capture_output=True, text=True, timeout=HANG_SECONDS,
                          env={**os.environ, **(env or {})})


def set_files(folder: Path):
    """{name: bytes} of every file in `folder`."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.fixture
def model(tmp_path):
    path = tmp_path / "model.safetensors"
    safetensors.numpy.save_file(small_model(), str(path))
    return path


def python_convert(src, tmp_path, **options):
    out = tmp_path / "py"
    out.mkdir()
    stats = ztensor.convert(str(src), str(out / "model.zt"), **options)
    return out, stats


def zt_convert(command, src, tmp_path, *args, env=None):
    out = tmp_path / "cli"
    out.mkdir()
    r = zt(command, src, out / "model.zt", *args, env=env)
    assert r.returncode == 0, r.stderr
    return out


@pytest.mark.parametrize("effort", ["fast", "balanced", "max"])
def test_convert_z4ai_shards_are_the_files_python_writes(model, tmp_path, effort):
    py, stats = python_convert(model, tmp_path, compression="z4ai", effort=effort, max_shard_size=SHARD,
                               checksum="crc32c")
    assert len(stats.files) > 2  # shards and an index, not one file
    cli = zt_convert("convert", model, tmp_path, "--compress", "z4ai", "--effort", effort, "--max-shard-size", SHARD,
                     "--checksum", "crc32c")
    assert set_files(cli) == set_files(py)


def test_convert_z4ai_with_a_level_is_the_file_python_writes(model, tmp_path):
    py, _ = python_convert(model, tmp_path, compression="z4ai", level=9, checksum="sha256")
    cli = zt_convert("convert", model, tmp_path, "--compress", "z4ai", "--level", "9", "--checksum", "sha256")
    assert set_files(cli) == set_files(py)
    with ztensor.open(str(cli / "model.zt")) as r:
        assert all(r.read(n).tobytes() == a.tobytes() for n, a in small_model().items())


@pytest.mark.parametrize("extra, options", [([], {}), (["--effort", "balanced"], {"effort": "balanced"}),
                                            (["--encoding", "zstd", "--level", "5"],
                                             {"compression": "zstd", "level": 5})])
def test_compress_max_shard_size_is_the_set_python_writes(model, tmp_path, extra, options):
    py, _ = python_convert(model, tmp_path, **{"compression": "z4ai", **options}, max_shard_size=SHARD)
    out = tmp_path / "cli"
    out.mkdir()
    r = zt("compress", model, out / "model.zt", "--max-shard-size", SHARD, "--json", *extra)
    assert r.returncode == 0, r.stderr
    assert set_files(out) == set_files(py)
    import json

    report = json.loads(r.stdout)
    assert report["files"][-1].endswith("model.zt.index.json") and len(report["files"]) == len(set_files(py))
    assert report["output_bytes"] == sum(len(b) for b in set_files(py).values())


@pytest.mark.parametrize("args, words", [
    (["convert", "IN", "o.zt", "--compress", "lz4"], "zstd, z4ai or none"),
    (["convert", "IN", "o.zt", "--compress", "zstd", "--effort", "max"], "z4ai encoding only"),
    (["convert", "IN", "o.zt", "--effort", "max"], "z4ai encoding only"),
    (["convert", "IN", "o.zt", "--compress", "z4ai", "--level", "0"], "1 to 22 for z4ai"),
    (["convert", "IN", "o.safetensors", "--compress", "z4ai"], ".zt output only"),
    (["compress", "IN", "o.zstn", "--max-shard-size", "1MB"], ".zt output only"),
    (["compress", "IN", "o.zt", "--max-shard-size", "lots"], "--max-shard-size"),
    (["convert", "IN", "s3://bucket/o.zt"], "local files only"),
    (["compress", "IN", "s3://bucket/o.zt"], "local files only"),
    (["convert", "IN", "o.zt", "--read-deadline", "soon"], "--read-deadline"),
    (["compress", "IN", "o.zt", "--redirects", "sometimes"], "--redirects"),
])
def test_options_a_command_cannot_take_are_usage_errors(model, args, words):
    r = zt(*[str(model) if a == "IN" else a for a in args])
    assert r.returncode == 2 and words in r.stderr, r.stderr


@pytest.fixture
def fault(tmp_path):
    path = tmp_path / "f.zt"
    ztensor.numpy.save_file(small_model(3), str(path))
    server = FaultServer("f.zt", path.read_bytes())
    yield server
    server.stop()


def test_max_attempts_flag_wins_over_the_environment(fault, tmp_path):
    fault.fail_first = 100
    r = zt("convert", fault.url(), tmp_path / "o.zt", "--max-attempts", "2", env={"ZT_HTTP_MAX_ATTEMPTS": "5"})
    assert r.returncode == 1 and "gave up after 2 attempts" in r.stderr, r.stderr
    assert fault.served == 2


def test_redirects_flag_sets_the_policy(fault, tmp_path):
    moved = fault.url("moved")
    assert zt("convert", moved, tmp_path / "a.zt").returncode == 0  # same origin: followed by default
    r = zt("convert", moved, tmp_path / "b.zt", "--redirects", "none")
    assert r.returncode == 1 and "refused" in r.stderr and "policy 'none'" in r.stderr, r.stderr


def test_allow_unvalidated_flag_reads_a_server_without_validators(fault, tmp_path):
    fault.validators = False
    refused = zt("compress", fault.url(), tmp_path / "a.zt")
    assert refused.returncode == 1 and "unsupported" in refused.stderr, refused.stderr
    r = zt("compress", fault.url(), tmp_path / "a.zt", "--allow-unvalidated")
    assert r.returncode == 0, r.stderr
    with ztensor.open(str(tmp_path / "a.zt")) as z:
        assert sorted(z.keys()) == sorted(small_model(3))


def test_s3_endpoint_and_region_flags_give_the_file_python_writes(tmp_path):
    from _servers import MotoS3

    server = MotoS3(tmp_path)
    try:
        src = tmp_path / "m.safetensors"
        safetensors.numpy.save_file(small_model(), str(src))
        server.bucket("models").upload_file(str(src), "models", "m.safetensors")
        url = "s3://models/m.safetensors"
        py, _ = python_convert(url, tmp_path, compression="z4ai", max_shard_size=SHARD,
                               storage_options=server.storage_options())
        # Credentials from the environment only; the endpoint and region from the flags.
        env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
        env.update(AWS_ACCESS_KEY_ID=server.KEY, AWS_SECRET_ACCESS_KEY=server.SECRET,
                   AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "none"), AWS_CONFIG_FILE=str(tmp_path / "none"))
        out = tmp_path / "cli"
        out.mkdir()
        r = subprocess.run([ZT, "convert", url, str(out / "model.zt"), "--compress", "z4ai", "--max-shard-size", SHARD,
                            "--endpoint-url", server.endpoint, "--region", server.REGION],
                           capture_output=True, text=True, timeout=HANG_SECONDS, env=env)
        assert r.returncode == 0, r.stderr
        assert set_files(out) == set_files(py)
    finally:
        server.stop()


@pytest.mark.parametrize("command, exit_code", [("info", 1), ("ls", 1), ("verify", 1), ("diff", 2)])
def test_every_command_that_reads_urls_takes_the_url_flags(fault, command, exit_code):
    fault.fail_first = 100
    files = [fault.url(), fault.url()] if command == "diff" else [fault.url()]
    r = zt(command, *files, "--max-attempts", "2")
    assert r.returncode == exit_code and "gave up after 2 attempts" in r.stderr, r.stderr
    assert fault.served == 2
