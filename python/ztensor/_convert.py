"""ztensor.convert: any weight file ztensor reads -> .zt, safetensors or .npz."""

from __future__ import annotations

import os
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple, Union

from . import _core
from ._files import is_url
from ._fsspec import check_storage_options, is_fsspec_url, open_any
from ._reader import Reader
from ._writer import _checksum, _encoding, _shard_size, effort_name
from .errors import ZTensorError, error

# Output format by destination extension.
_OUTPUTS = {".zt": "zt", ".safetensors": "safetensors", ".npz": "npz"}
_EFFORT_TIER = {None: 0, "fast": 0, "balanced": 1, "max": 2}


@dataclass(frozen=True)
class ConvertStats:
    """What :func:`convert` did."""

    objects: int  # objects written
    bytes: int  # decoded tensor bytes converted
    warnings: List[str] = field(default_factory=list)  # e.g. attributes the output cannot hold
    src_format: str = ""  # "safetensors", "gguf", ... (as Reader.format)
    dst_format: str = ""  # "zt", "safetensors" or "npz"
    files: List[str] = field(default_factory=list)  # .zt: the file, or the shards then the index


def convert(src, dst, *, compression: Optional[str] = None, level: Optional[int] = None,
            effort: Optional[str] = None, checksum: Optional[str] = None,
            progress: Optional[Callable[[int, int], None]] = None, durable: bool = True,
            max_shard_size: Optional[Union[int, str]] = None, client=None,
            storage_options: Optional[Dict[str, Any]] = None,
            dst_storage_options: Optional[Dict[str, Any]] = None) -> ConvertStats:
    """Convert ``src`` (any format :func:`ztensor.open` reads, detected by
    content: a path or any URL it takes) to ``dst``, whose extension picks
    the output:

    * ``.zt``: every object with all its components and attributes;
      ``compression`` None/"zstd"/"z4ai" (``level``; ``effort``
      "fast"|"balanced"|"max" for z4ai) and ``checksum`` None/"sha256"/"crc32c"
      apply to every component.
    * ``.safetensors``: dense objects only; string file attributes become
      ``__metadata__``.
    * ``.npz``: dense objects numpy can hold (no bf16/fp8), stored
      uncompressed; attributes are dropped (listed in ``warnings``).

    Objects an output cannot hold raise UnsupportedError naming the object.
    ``.zt`` inputs have their digests checked while read. ``progress(done,
    total)`` is called after each object with decoded bytes; an exception it
    raises (or Ctrl-C) aborts the conversion. The output appears atomically:
    on any error nothing is left at ``dst``. The GIL is released meanwhile.
    ``durable=False`` skips the fsync of a .zt output before its rename (as
    :class:`ztensor.Writer`). ``max_shard_size`` (bytes, or "5GB"/"2GiB" as
    Hugging Face accepts) splits a .zt output into ``NAME-00001-of-0000N.zt``
    ... plus ``NAME.zt.index.json`` (one file when everything fits; objects
    are never split); the set is published atomically.

    ``dst`` may be an fsspec URL (``s3://bucket/model.zt``): written to a
    local temporary folder, then uploaded file by file, each appearing whole
    or not at all, the index last (docs/stores.md). ``storage_options`` go to
    the filesystems of ``src`` and ``dst``; ``dst_storage_options`` to
    ``dst``'s instead, when given.

    A folder ``src`` (a Hugging Face model folder or cache snapshot) gives
    the folder ``dst``: its safetensors weights as .zt (the input's shard
    count unless ``max_shard_size`` says otherwise), every other file copied
    under its own path in ``src`` (links: docs/scale.md). On any error
    nothing is left, ``dst`` included when this call created it.

    ``client`` (a ``dask.distributed.Client``, .zt output only) runs the
    encoding of each object on the cluster's workers, which read ``src``
    themselves (a path they can see, or a URL, opened with the same storage
    options and held to the version this process opened); this process
    appends the results in source order, so the output is byte-identical to
    a local run. With ``max_shard_size`` the workers write whole shards
    themselves (into a staging folder beside ``dst``, or for a URL ``dst``
    in the local temporary folder, which they must see too) and this
    process publishes the set, byte-identical to a local run; the progress
    then comes once per shard. A worker's error is raised here with its
    ``.code``, and nothing is published.
    """
    src = os.fspath(src)
    dst = os.fspath(dst)
    if os.path.isdir(src):
        return _convert_folder(src, dst, compression, level, effort, checksum, progress, durable, max_shard_size,
                               client)
    ext = os.path.splitext(dst.split("?", 1)[0])[1].lower()
    index_out = dst.endswith(".zt.index.json")  # the index names a sharded set
    out_format = "zt" if index_out else _OUTPUTS.get(ext)
    if out_format is None:
        raise error("invalid_argument", f"cannot tell the output format of '{dst}': "
                                        "give it a .zt, .safetensors or .npz extension")
    if out_format != "zt" and (compression not in (None, "raw") or level is not None or effort is not None
                               or checksum not in (None, "none") or max_shard_size is not None):
        raise error("invalid_argument", f"compression, level, effort, checksum and max_shard_size apply to .zt "
                                        f"output only, not .{out_format}")
    if progress is not None and not callable(progress):
        raise error("invalid_argument", "progress must be a callable(done, total) or None")
    if client is not None and out_format != "zt":
        raise error("invalid_argument", f"client= applies to .zt output only, not .{out_format}")
    effort = effort_name(effort)
    enc, lvl = _encoding(compression, level, None, effort)
    job = _Job(out_format, enc.split(":", 1)[0], lvl, _EFFORT_TIER[effort], _checksum(checksum), bool(durable),
               _shard_size(max_shard_size), progress, client)
    options = check_storage_options(storage_options)
    # A URL is opened here, once: the converter and any Dask worker then
    # read the version opened, with the caller's storage options.
    remote = is_url(src) or is_fsspec_url(src)
    with (open_any(src, verify=True, storage_options=options) if remote else nullcontext()) as source:
        if is_fsspec_url(dst):
            from ._store_write import write_then_upload

            dst_options = options if dst_storage_options is None else check_storage_options(dst_storage_options)
            return write_then_upload(dst, dst_options, lambda local: job.run(src, source, local))
        return job.run(src, source, dst)


@dataclass(frozen=True)
class _Job:
    """One conversion's settings, run into a local ``dst``."""

    out_format: str
    encoding: str
    level: int
    effort: int
    checksum: str
    durable: bool
    shard_size: int
    progress: Optional[Callable[[int, int], None]]
    client: Any

    def run(self, src: str, source: Optional[Reader], dst: str) -> ConvertStats:
        """``source``: ``src`` already open (a URL), else None (the core opens the path)."""
        core_src: Any = source._r if source is not None else src
        encoded, cancel = None, None
        if self.client is not None:
            from ._dask import encoded_hook, worker_source, write_shards

            on_workers = worker_source(src, source)
            if self.shard_size:
                written = write_shards(self.client, core_src, on_workers, dst, self.encoding, self.level,
                                       self.effort, self.checksum, self.durable, self.shard_size, self.progress)
                if written is not None:
                    objects, nbytes, warnings, src_format, files = written
                    return ConvertStats(objects, nbytes, warnings, src_format, self.out_format, files)
            names = source.keys() if source is not None else None
            encoded, cancel = encoded_hook(self.client, on_workers, self.encoding, self.level, self.effort,
                                           objects=None if names is None else list(enumerate(names)))
        try:
            objects, nbytes, warnings, src_format, files = _core.convert(
                core_src, dst, self.out_format, self.encoding, self.level, self.effort, self.checksum, self.durable,
                self.progress, self.shard_size, encoded)
        finally:
            if cancel is not None:
                cancel()
        return ConvertStats(objects, nbytes, list(warnings), src_format, self.out_format, list(files))


def _convert_folder(src: str, dst: str, compression, level, effort, checksum, progress, durable, max_shard_size,
                    client) -> ConvertStats:
    if client is not None:
        raise error("invalid_argument", f"client= converts files, not model folders such as '{src}'")
    if progress is not None and not callable(progress):
        raise error("invalid_argument", "progress must be a callable(done, total) or None")
    effort = effort_name(effort)
    enc, lvl = _encoding(compression, level, None, effort)
    objects, nbytes, warnings, files = _core.convert_folder(src, dst, enc.split(":", 1)[0], lvl, _EFFORT_TIER[effort],
                                                            _checksum(checksum), bool(durable), progress,
                                                            _shard_size(max_shard_size))
    return ConvertStats(objects, nbytes, list(warnings), "folder", "folder", list(files))


def convert_many(pairs: Iterable[Tuple[object, object]], *, client=None,
                 **options) -> List[Union[ConvertStats, ZTensorError]]:
    """:func:`convert` each ``(src, dst)`` in turn with the same ``options``
    (``storage_options`` included) and ``client`` (the encoding of each runs
    on its workers). Each output
    is published atomically on its own, and one failing does not stop the
    others: the result lists, per pair in order, its :class:`ConvertStats`
    or the ztensor error it raised (nothing published at that ``dst``).
    Other exceptions (a bad argument type, Ctrl-C) propagate at once."""
    results: List[Union[ConvertStats, ZTensorError]] = []
    for src, dst in pairs:
        try:
            results.append(convert(src, dst, client=client, **options))
        except ZTensorError as e:
            results.append(e)
    return results
