"""Fixtures for the object-store tests: moto's S3 server on loopback reached
with explicit storage_options only (no AWS_* variable, no ~/.aws file, no
fsspec config), so a test passes only when the options reach s3fs."""

import os
from pathlib import Path

import numpy as np
import pytest

import ztensor


def clear_aws_environment(mp: pytest.MonkeyPatch, tmp: Path) -> None:
    for name in list(os.environ):
        if name.startswith("AWS_"):
            mp.delenv(name)
    # botocore would read these files; point it at files that do not exist.
    mp.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp / "no-credentials"))
    mp.setenv("AWS_CONFIG_FILE", str(tmp / "no-config"))
    mp.setenv("AWS_EC2_METADATA_DISABLED", "true")  # no instance-metadata probe (it would leave loopback)
    import fsspec
    import s3fs

    fsspec.config.conf.pop("s3", None)
    s3fs.S3FileSystem.clear_instance_cache()  # an earlier test's instance points at its own (stopped) server


@pytest.fixture(scope="module")
def s3(tmp_path_factory):
    """(MotoS3, storage_options) with the environment cleared for the module
    (Dask workers started inside it inherit that environment)."""
    from _servers import MotoS3

    tmp = tmp_path_factory.mktemp("moto")
    with pytest.MonkeyPatch.context() as mp:
        clear_aws_environment(mp, tmp)
        server = MotoS3(tmp)
        try:
            yield server, server.storage_options()
        finally:
            server.stop()


def small_model(count=15, seed=3):
    """`count` float32 tensors of distinct shapes, as a state dict."""
    rng = np.random.default_rng(seed)
    return {f"layer{i}.w": rng.standard_normal((8 + i, 16)).astype(np.float32) for i in range(count)}


def upload(s3_client, bucket, key, path):
    s3_client.upload_file(str(path), bucket, key)


def keys(s3_client, bucket):
    """Every key in the bucket."""
    reply = s3_client.list_objects_v2(Bucket=bucket)
    return sorted(o["Key"] for o in reply.get("Contents", []))


def assert_one_line_error(exc: BaseException, code: str):
    """A ztensor error with `code` and a single-line message (no foreign traceback)."""
    assert isinstance(exc, ztensor.ZTensorError), repr(exc)
    assert exc.code == code, (exc.code, str(exc))
    text = str(exc)
    assert "\n" not in text and "Traceback" not in text, text
