"""ztensor.convert to an fsspec URL (s3://bucket/model.zt, a sharded set).

The converters write files, so the output is written to a local temporary
folder first, then uploaded, each file published the way its store makes
an object appear whole or not at all:

* S3: one PUT, or a multipart upload that s3fs aborts on error; either way
  the object is visible only once complete.
* Other stores: uploaded under a hidden temporary name beside the target,
  then moved onto it (a rename on local and memory filesystems, a copy of
  one whole object on the others).

A sharded set uploads its shards, then its index; an error deletes what
this write uploaded, so a failed write leaves no object of its own (a set
overwritten in place may have had shards of the same names replaced; its
old index is left as it was).
"""

from __future__ import annotations

import os
import posixpath
import shutil
import tempfile
import uuid
from dataclasses import replace
from typing import Any, Callable, Dict, List

from ._fsspec import filesystem
from ._store_errors import raise_store_error
from ._store_pin import is_s3


def write_then_upload(dst: str, storage_options: Dict[str, Any], write: Callable[[str], Any]):
    """Run ``write(local path)`` (returns ConvertStats) into a temporary
    folder, upload what it wrote beside ``dst``, and return the stats with
    the uploaded URLs as ``files``."""
    fs, path, _ = filesystem(dst, storage_options)
    url_folder, path_folder = dst.rsplit("/", 1)[0], posixpath.dirname(path)
    staging = tempfile.mkdtemp(prefix=".zt-upload-")
    try:
        local_dst = os.path.join(staging, posixpath.basename(path))
        stats = write(local_dst)
        local_files = list(stats.files) or [local_dst]
        names = [os.path.basename(f) for f in local_files]
        _publish(fs, dst, local_files, [posixpath.join(path_folder, n) for n in names])
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return replace(stats, files=[f"{url_folder}/{n}" for n in names])


def _publish(fs, dst: str, local_files: List[str], remote_paths: List[str]) -> None:
    """Upload each file in order (shards, then the index); on any error,
    delete what was uploaded and raise the store's error as ours."""
    uploaded: List[str] = []
    try:
        for local, remote in zip(local_files, remote_paths):
            _put_whole(fs, local, remote)
            uploaded.append(remote)
    except BaseException as e:
        for remote in uploaded:
            try:
                fs.rm_file(remote)
            except Exception:  # the store's first error is the one to report
                pass
        if isinstance(e, Exception):
            raise_store_error(dst, e, "uploading")
        raise


def _put_whole(fs, local: str, remote: str) -> None:
    if is_s3(fs):  # a PUT or a multipart upload: the object appears whole or not at all
        fs.put_file(local, remote)
        return
    temporary = posixpath.join(posixpath.dirname(remote), f".{posixpath.basename(remote)}.{uuid.uuid4().hex}.tmp")
    try:
        fs.put_file(local, temporary)
        fs.mv(temporary, remote)
    except BaseException:
        try:
            fs.rm_file(temporary)
        except Exception:  # never created, or already moved
            pass
        raise
