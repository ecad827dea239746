"""ztensor.convert(..., client=) from an s3:// source: the workers (separate
processes with no AWS environment) get the caller's storage_options and
read the version the client opened. moto's S3 server on loopback."""

import uuid

import numpy as np
import pytest

import ztensor
import ztensor.numpy as ztnp
from _stores import assert_one_line_error, keys, s3, small_model  # noqa: F401

distributed = pytest.importorskip("dask.distributed")
pytest.importorskip("s3fs")

# More objects than the client keeps in flight (_dask.MAX_IN_FLIGHT_OBJECTS),
# so some are submitted after a change made from the progress callback.
OBJECTS = 20


@pytest.fixture(scope="module")
def client(s3):
    # Started inside the s3 fixture's cleared environment, which the worker processes inherit.
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None, silence_logs=40) as cluster:
        with distributed.Client(cluster, timeout="60s") as c:
            yield c


@pytest.fixture
def source(s3):
    """(bucket client, bucket, storage options, tensors) with m.zt uploaded."""
    server, options = s3
    name = f"dask-{uuid.uuid4().hex[:10]}"
    bucket = server.bucket(name, versioned=False)
    tensors = small_model(OBJECTS)
    bucket.put_object(Bucket=name, Key="m.zt", Body=ztnp.save(tensors))
    return bucket, name, options, tensors


def test_workers_read_with_the_callers_options(client, source, tmp_path):
    _, name, options, tensors = source
    url = f"s3://{name}/m.zt"
    ztensor.convert(url, tmp_path / "local.zt", compression="zstd", storage_options=options)
    ztensor.convert(url, tmp_path / "dask.zt", compression="zstd", storage_options=options, client=client)
    assert (tmp_path / "dask.zt").read_bytes() == (tmp_path / "local.zt").read_bytes()


def test_workers_write_shards_from_s3_to_s3(client, source, tmp_path):
    bucket, name, options, tensors = source
    url = f"s3://{name}/m.zt"
    local = ztensor.convert(url, tmp_path / "model.zt", compression="zstd", max_shard_size="4KB",
                            storage_options=options)
    remote = ztensor.convert(url, f"s3://{name}/out/model.zt", compression="zstd", max_shard_size="4KB",
                             storage_options=options, client=client)
    assert len(remote.files) == len(local.files) > 3
    for local_file, url_file in zip(local.files, remote.files):
        key = url_file[len(f"s3://{name}/"):]
        assert bucket.get_object(Bucket=name, Key=key)["Body"].read() == open(local_file, "rb").read()
    assert keys(bucket, name) == sorted(["m.zt"] + [f[len(f"s3://{name}/"):] for f in remote.files])


def test_overwrite_during_a_dask_convert_publishes_nothing(client, source, tmp_path):
    # Objects past the in-flight window are submitted after the overwrite, so their workers open the
    # new object: held to the client's version, they refuse it rather than mix two versions in one file.
    from ztensor._dask import MAX_IN_FLIGHT_OBJECTS

    assert OBJECTS > MAX_IN_FLIGHT_OBJECTS + 1
    bucket, name, options, tensors = source
    changed = []

    def overwrite(done, total):
        if not changed:  # after the first object
            bucket.put_object(Bucket=name, Key="m.zt", Body=ztnp.save({k: v + 1 for k, v in tensors.items()}))
            changed.append(done)

    with pytest.raises(ztensor.FormatError) as e:
        ztensor.convert(f"s3://{name}/m.zt", tmp_path / "out.zt", compression="zstd", storage_options=options,
                        client=client, progress=overwrite)
    assert_one_line_error(e.value, "length_mismatch")
    assert list(tmp_path.iterdir()) == []


def test_versioned_source_changed_mid_job_still_converts_the_version_opened(client, s3, tmp_path):
    server, options = s3
    name = f"dask-versioned-{uuid.uuid4().hex[:8]}"
    bucket = server.bucket(name, versioned=True)
    tensors = small_model(OBJECTS)
    bucket.put_object(Bucket=name, Key="m.zt", Body=ztnp.save(tensors))
    changed = []

    def overwrite(done, total):
        if not changed:
            bucket.put_object(Bucket=name, Key="m.zt", Body=ztnp.save({k: v + 1 for k, v in tensors.items()}))
            changed.append(done)

    ztensor.convert(f"s3://{name}/m.zt", tmp_path / "out.zt", compression="zstd", storage_options=options,
                    client=client, progress=overwrite)
    assert changed
    with ztensor.open(tmp_path / "out.zt") as r:
        for k, v in tensors.items():
            np.testing.assert_array_equal(r.read(k), v)
