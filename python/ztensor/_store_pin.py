"""One version of an object per read: the object at an fsspec URL is pinned
when it is opened, and every range read afterwards either returns bytes of
that version or fails with ``length_mismatch`` (the code the HTTP reader
gives a file that changes), never bytes of another version under the
manifest already parsed.

* S3 (s3fs): the object's VersionId when the bucket is versioned (every
  range asks for that version, so a later overwrite does not disturb the
  read), else its ETag (every range is a conditional GET, ``If-Match``; the
  store refuses it with 412 once the object changed). The ETag or version
  the store answers with is checked too, for stores that ignore conditions.
* Any other filesystem: the validators its ``info()`` gives (ETag, version,
  generation, modification or creation time, inode) with the size,
  compared again after every range read. A weak validator (a modification
  time) cannot see a rewrite that keeps the size and the time; digests can
  (``verify=True``; remote reads check every digest the file carries).
* No validator at all (only a size): opening is refused, since every format
  is read with several requests, unless the caller allows it with the
  storage option ``allow_unvalidated=True``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple

from ._store_errors import raise_store_error, raise_through_core
from .errors import error, through_core

# info() fields that change when an object is rewritten, across fsspec
# backends (s3fs, gcsfs, adlfs, hf, local, memory, sftp, ftp, webdav).
VALIDATOR_KEYS = ("ETag", "etag", "VersionId", "version_id", "generation", "blob_id", "md5Hash", "crc32c",
                  "mtime", "LastModified", "last_modified", "updated", "modify", "created", "ino")
# The storage option (ztensor's own, never passed to fsspec) that allows
# reading an object whose store offers no validator.
ALLOW_UNVALIDATED = "allow_unvalidated"


@dataclass(frozen=True)
class Pin:
    """An object's identity when it was opened: its size and validators."""

    size: int
    validators: Tuple[Tuple[str, str], ...]

    def get(self, key: str) -> Optional[str]:
        return dict(self.validators).get(key)

    def describe(self) -> str:
        return ", ".join(f"{k} {v}" for k, v in self.validators) or "no validator"


def pin_of(info: Dict[str, Any]) -> Pin:
    validators = []
    for key in VALIDATOR_KEYS:
        value = info.get(key)
        if value in (None, "", "null"):  # S3 answers VersionId "null" for an unversioned object
            continue
        validators.append((key, str(value)))
    return Pin(int(info.get("size") or 0), tuple(validators))


def is_s3(fs) -> bool:
    protocol = fs.protocol if isinstance(fs.protocol, (tuple, list)) else (fs.protocol,)
    return "s3" in protocol and hasattr(fs, "_call_s3")


def _changed(url: str, pin: Pin, now: str) -> None:
    raise through_core(error("length_mismatch", f"'{url}': the object changed since it was opened "
                                                f"({pin.describe()}; now {now}); open it again to read the new "
                                                "version"))


class PinnedObject:
    """``read(offset, length)`` of one version of the object at ``url``.
    ``pin``: the identity to hold it to (a Dask worker gets the client's),
    else the object's identity now."""

    def __init__(self, fs, path: str, url: str, pin: Optional[Pin], allow_unvalidated: bool):
        self._fs, self._path, self._url = fs, path, url
        if pin is None:
            pin = pin_of(self._info("opening it"))
        self.pin = pin
        # S3 holds each range to the version itself; other stores are asked again after each read.
        self._s3 = is_s3(fs) and bool(pin.get("VersionId") or pin.get("ETag"))
        self.size = pin.size
        if not pin.validators and not allow_unvalidated:
            raise error("unsupported", f"'{url}': the store gives no ETag, version or modification time for the "
                                       "object, so its reads cannot be held to one version; pass "
                                       f"storage_options={{'{ALLOW_UNVALIDATED}': True}} to read it anyway")

    def _info(self, doing: str) -> Dict[str, Any]:
        try:
            self._fs.invalidate_cache(self._path)  # a listing cached earlier may hold an older version
            return self._fs.info(self._path)
        except Exception as e:
            raise_store_error(self._url, e, doing)

    def read(self, offset: int, length: int) -> bytes:
        doing = f"reading bytes {offset}-{offset + length - 1}"
        try:
            if self._s3:
                return self._read_s3(offset, length)
            data = self._fs.cat_file(self._path, start=offset, end=offset + length)
        except Exception as e:
            raise_through_core(self._url, e, doing)
        try:
            self._fs.invalidate_cache(self._path)
            now = pin_of(self._fs.info(self._path))
        except Exception as e:
            raise_through_core(self._url, e, doing)
        if now != self.pin:
            _changed(self._url, self.pin, f"size {now.size}, {now.describe()}")
        return data

    def _read_s3(self, offset: int, length: int) -> bytes:
        from fsspec.asyn import sync  # type: ignore[import-untyped]  # fsspec ships no stubs

        fs, version, etag = self._fs, self.pin.get("VersionId"), self.pin.get("ETag")
        bucket, key, _ = fs.split_path(self._path)
        condition = {"VersionId": version} if version else {"IfMatch": etag}

        async def get():
            reply = await fs._call_s3("get_object", Bucket=bucket, Key=key,
                                      Range=f"bytes={offset}-{offset + length - 1}", **condition)
            try:
                return reply.get("ETag"), reply.get("VersionId"), await reply["Body"].read()
            finally:
                reply["Body"].close()

        got_etag, got_version, data = sync(fs.loop, get)
        # A store that ignores the condition still says which version it sent.
        if version and got_version and got_version != version:
            _changed(self._url, self.pin, f"VersionId {got_version}")
        if not version and etag and got_etag and got_etag != etag:
            _changed(self._url, self.pin, f"ETag {got_etag}")
        return data
