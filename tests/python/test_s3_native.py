"""s3:// read natively by the core (libcurl, SigV4) from the CLI, the C API
and the binding's open_url, against moto's S3 server on loopback with
authentication on: an IAM user's key signs every request, and moto checks
the signature. Credentials come from the AWS_* environment, from a profile
in the shared credentials and config files, or from the call; wrong
credentials, a missing bucket or key and an unreachable endpoint end in
coded one-line errors.
"""

import json
import os
import subprocess

import numpy as np
import pytest

import ztensor
import ztensor.numpy
from _capi import CApi, find_libztensor
from _cli import ZT, needs_zt
from _servers import MotoS3, free_port

BIG = np.arange(4 << 20, dtype=np.float32)  # 16 MiB: read in concurrent parts
SMALL = np.arange(10, dtype=np.int16)
REGION = "eu-west-1"
HANG_SECONDS = 120
# Every AWS variable a developer's shell might carry into the tests.
AWS_VARS = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION", "AWS_DEFAULT_REGION",
            "AWS_PROFILE", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE", "AWS_ENDPOINT_URL",
            "AWS_ENDPOINT_URL_S3")

needs_lib = pytest.mark.skipif(find_libztensor() is None, reason="libztensor.so not built (or set ZT_LIB)")


class Store:
    """moto with a bucket of test files and an IAM user allowed to read it;
    after setup moto checks every request's credentials and signature."""

    def __init__(self, tmp):
        import urllib.request

        import boto3

        self.server = MotoS3(tmp)
        self.endpoint = self.server.endpoint
        setup = dict(endpoint_url=self.endpoint, region_name=REGION, aws_access_key_id="setup",
                     aws_secret_access_key="setup")
        iam = boto3.client("iam", **setup)
        iam.create_user(UserName="reader")
        iam.put_user_policy(UserName="reader", PolicyName="read", PolicyDocument=json.dumps(
            {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}))
        key = iam.create_access_key(UserName="reader")["AccessKey"]
        self.key, self.secret = key["AccessKeyId"], key["SecretAccessKey"]
        self.s3 = boto3.client("s3", **setup)
        self.s3.create_bucket(Bucket="models", CreateBucketConfiguration={"LocationConstraint": REGION})
        path = tmp / "m.zt"
        ztensor.numpy.save_file({"big": BIG, "small": SMALL}, str(path), checksum="sha256")
        self.data = path.read_bytes()
        for name in ("m.zt", "dir/m v1.zt"):
            self.s3.put_object(Bucket="models", Key=name, Body=self.data)
        shards = tmp / "shards"
        shards.mkdir()
        out = subprocess.run([ZT, "convert", str(path), str(shards / "model.zt"), "--max-shard-size", "8MB"],
                             capture_output=True, text=True) if ZT else None
        if out is not None:
            assert out.returncode == 0, out.stderr
            for p in shards.iterdir():
                self.s3.put_object(Bucket="models", Key=f"set/{p.name}", Body=p.read_bytes())
        # From here on, moto checks every request's access key and signature.
        reset = urllib.request.Request(f"{self.endpoint}/moto-api/reset-auth", data=b"0",
                                       headers={"Content-Type": "text/plain"})  # not a form: moto reads the body
        with urllib.request.urlopen(reset) as reply:
            assert reply.status == 200
        self.s3 = boto3.client("s3", endpoint_url=self.endpoint, region_name=REGION, aws_access_key_id=self.key,
                               aws_secret_access_key=self.secret)

    def env(self, **extra):
        env = {k: v for k, v in os.environ.items() if k not in AWS_VARS}
        env.update(AWS_ACCESS_KEY_ID=self.key, AWS_SECRET_ACCESS_KEY=self.secret, AWS_REGION=REGION,
                   AWS_ENDPOINT_URL=self.endpoint)
        env.update(extra)
        return {k: v for k, v in env.items() if v is not None}

    def options(self, **extra):
        return {"key": self.key, "secret": self.secret, "region": REGION, "endpoint_url": self.endpoint, **extra}


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    s = Store(tmp_path_factory.mktemp("s3"))
    yield s
    s.server.stop()


@pytest.fixture
def clean_env(monkeypatch):
    for var in AWS_VARS:
        monkeypatch.delenv(var, raising=False)
    return monkeypatch


def zt(*args, env):
    return subprocess.run([ZT, *args], capture_output=True, text=True, env=env, timeout=HANG_SECONDS)


def one_line_error(out, code, *words):
    assert out.returncode == 1, (out.stdout, out.stderr)
    err = out.stderr.strip()
    assert "\n" not in err and code in err and all(w in err for w in words), err
    assert "Traceback" not in err


@needs_zt
def test_cli_reads_s3_with_the_environment(store, tmp_path):
    url = "s3://models/m.zt"
    env = store.env()
    for cmd in (["info", url], ["ls", url], ["verify", url], ["diff", url, url]):
        out = zt(*cmd, env=env)
        assert out.returncode == 0, (cmd, out.stderr)
    assert "big" in zt("ls", url, env=env).stdout
    dst = tmp_path / "m.safetensors"
    out = zt("convert", url, str(dst), env=env)
    assert out.returncode == 0, out.stderr
    from safetensors.numpy import load_file

    got = load_file(str(dst))
    np.testing.assert_array_equal(got["big"], BIG)
    np.testing.assert_array_equal(got["small"], SMALL)


@needs_zt
def test_cli_reads_a_sharded_set_and_a_key_with_a_space(store):
    env = store.env()
    out = zt("ls", "s3://models/set/model.zt.index.json", env=env)
    assert out.returncode == 0 and "big" in out.stdout and "small" in out.stdout, out.stderr
    out = zt("verify", "s3://models/dir/m v1.zt", env=env)
    assert out.returncode == 0, out.stderr


@needs_zt
def test_profile_from_the_shared_files(store, tmp_path):
    cred, conf = tmp_path / "credentials", tmp_path / "config"
    cred.write_text(f"[default]\naws_access_key_id = wrong\naws_secret_access_key = wrong\n"
                    f"[ci]\naws_access_key_id = {store.key}\naws_secret_access_key = {store.secret}\n")
    conf.write_text(f"[profile ci]\nregion = {REGION}\nendpoint_url = {store.endpoint}\n")
    env = store.env(AWS_ACCESS_KEY_ID=None, AWS_SECRET_ACCESS_KEY=None, AWS_REGION=None, AWS_ENDPOINT_URL=None,
                    AWS_SHARED_CREDENTIALS_FILE=str(cred), AWS_CONFIG_FILE=str(conf), AWS_PROFILE="ci")
    out = zt("ls", "s3://models/m.zt", env=env)
    assert out.returncode == 0 and "small" in out.stdout, out.stderr
    out = zt("ls", "s3://models/m.zt", env={**env, "AWS_PROFILE": "absent"})
    one_line_error(out, "invalid_argument", "AWS profile 'absent'")


@needs_lib
def test_c_api_reads_s3(store, clean_env):
    for var, value in store.env().items():
        if var.startswith("AWS_"):
            clean_env.setenv(var, value)
    api = CApi()
    assert api.open_url("s3://models/m.zt", read="big") == ("ok", "", 2)
    # zt_reader_open takes the same URL, with the environment's options.
    import ctypes

    reader = ctypes.c_void_p()
    api.lib.zt_reader_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_void_p)]
    assert api.lib.zt_reader_open(b"s3://models/m.zt", 0, ctypes.byref(reader)) == 0, api.lib.zt_last_error()
    api.lib.zt_reader_close(reader)


@needs_lib
def test_c_api_takes_credentials_per_call(store, clean_env):
    assert CApi().open_url("s3://models/m.zt", store.options(), read="small") == ("ok", "", 2)


def test_binding_open_url_reads_ranges_concurrently(store, clean_env):
    from ztensor._remote import open_native

    before = len(store.server.requests())
    with open_native("s3://models/m.zt", storage_options=store.options()) as r:
        np.testing.assert_array_equal(r.read("small"), SMALL)
        np.testing.assert_array_equal(r.read("big"), BIG)
    gets = [(line, status) for line, status in store.server.requests()[before:] if line.startswith("GET /models/m.zt")]
    assert len(gets) >= 4 + 2 and all(status == 206 for _, status in gets), gets  # open, small, big in parts


def test_s3fs_spelling_of_the_options(store, clean_env):
    from ztensor._remote import open_native

    options = {"key": store.key, "secret": store.secret, "endpoint_url": store.endpoint,
               "client_kwargs": {"region_name": REGION}}
    with open_native("s3://models/m.zt", storage_options=options) as r:
        np.testing.assert_array_equal(r.read("small"), SMALL)


def test_object_overwritten_between_requests_is_caught(store, clean_env):
    from ztensor._remote import open_native

    store.s3.put_object(Bucket="models", Key="changing.zt", Body=store.data)
    r = open_native("s3://models/changing.zt", storage_options=store.options())
    changed = bytearray(store.data)
    changed[-200] ^= 1  # same size, another ETag
    store.s3.put_object(Bucket="models", Key="changing.zt", Body=bytes(changed))
    with pytest.raises(ztensor.errors.FormatError, match="changed while being read .ETag"):
        r.read("small")


@needs_zt
def test_wrong_secret_is_a_one_line_io_error(store):
    out = zt("info", "s3://models/m.zt", env=store.env(AWS_SECRET_ACCESS_KEY="wrong"))
    one_line_error(out, "io_error", "s3://models/m.zt", "HTTP 403", "SignatureDoesNotMatch", "AWS_ACCESS_KEY_ID")


@needs_zt
def test_unknown_key_id_is_a_one_line_io_error(store):
    out = zt("info", "s3://models/m.zt", env=store.env(AWS_ACCESS_KEY_ID="AKIANOTAKEY0000000"))
    one_line_error(out, "io_error", "HTTP 403", "InvalidAccessKeyId")


@needs_zt
def test_missing_key_and_bucket_are_not_found(store):
    out = zt("info", "s3://models/absent.zt", env=store.env())
    one_line_error(out, "not_found", "s3://models/absent.zt", "NoSuchKey")
    out = zt("ls", "s3://no-such-bucket/m.zt", env=store.env())
    one_line_error(out, "not_found", "s3://no-such-bucket/m.zt", "NoSuchBucket")


@needs_lib
def test_missing_key_from_c(store, clean_env):
    code, message, _ = CApi().open_url("s3://models/absent.zt", store.options())
    assert code == "not_found" and "s3://models/absent.zt" in message and "NoSuchKey" in message, message


@needs_zt
def test_unreachable_endpoint_is_a_one_line_io_error(store):
    endpoint = f"http://127.0.0.1:{free_port()}"
    out = zt("info", "s3://models/m.zt", env=store.env(AWS_ENDPOINT_URL=endpoint, ZT_HTTP_MAX_ATTEMPTS="2"))
    one_line_error(out, "io_error", "s3://models/m.zt", "gave up after 2 attempts")


def test_anonymous_reads_need_no_credentials(tmp_path, clean_env):
    import boto3

    server = MotoS3(tmp_path)  # moto serves unsigned requests for public-read objects only
    try:
        s3 = boto3.client("s3", endpoint_url=server.endpoint, region_name="us-east-1", aws_access_key_id="x",
                          aws_secret_access_key="x")
        s3.create_bucket(Bucket="public")
        path = tmp_path / "p.zt"
        ztensor.numpy.save_file({"small": SMALL}, str(path))
        s3.put_object(Bucket="public", Key="p.zt", Body=path.read_bytes(), ACL="public-read")
        from ztensor._remote import open_native

        with open_native("s3://public/p.zt", storage_options={"anon": True, "endpoint_url": server.endpoint}) as r:
            np.testing.assert_array_equal(r.read("small"), SMALL)
        if ZT:  # no credentials anywhere: unsigned requests
            out = subprocess.run([ZT, "ls", "s3://public/p.zt"], capture_output=True, text=True, timeout=HANG_SECONDS,
                                 env={**{k: v for k, v in os.environ.items() if k not in AWS_VARS},
                                      "AWS_ENDPOINT_URL": server.endpoint, "HOME": str(tmp_path)})
            assert out.returncode == 0 and "small" in out.stdout, out.stderr
    finally:
        server.stop()
