"""ztensor.convert: any weight file ztensor reads -> .zt, safetensors or .npz."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Callable, Iterable, List, Optional, Tuple, Union

from . import _core
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
            max_shard_size: Optional[Union[int, str]] = None, client=None) -> ConvertStats:
    """Convert ``src`` (any format :func:`ztensor.open` reads, detected by
    content) to ``dst``, whose extension picks the output:

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

    A folder ``src`` (a Hugging Face model folder or cache snapshot) gives
    the folder ``dst``: its safetensors weights as .zt (the input's shard
    count unless ``max_shard_size`` says otherwise), every other file copied
    under its own path in ``src`` (links: docs/scale.md). On any error
    nothing is left, ``dst`` included when this call created it.

    ``client`` (a ``dask.distributed.Client``, .zt output only) runs the
    encoding of each object on the cluster's workers, which read ``src``
    themselves (a path they can see, or a URL); this process appends the
    results in source order, so the output is byte-identical to a local
    run. With ``max_shard_size`` the workers write whole shards themselves
    (into a staging folder beside ``dst``, which they must see too) and
    this process publishes the set, byte-identical to a local run; the
    progress then comes once per shard. A worker's error is raised here
    with its ``.code``, and nothing is published.
    """
    src = os.fspath(src)
    dst = os.fspath(dst)
    if os.path.isdir(src):
        return _convert_folder(src, dst, compression, level, effort, checksum, progress, durable, max_shard_size,
                               client)
    ext = os.path.splitext(dst)[1].lower()
    out_format = "zt" if dst.endswith(".zt.index.json") else _OUTPUTS.get(ext)  # the index names a sharded set
    if out_format is None:
        raise error("invalid_argument", f"cannot tell the output format of '{dst}': "
                                        "give it a .zt, .safetensors or .npz extension")
    if out_format != "zt" and (compression not in (None, "raw") or level is not None or effort is not None
                               or checksum not in (None, "none") or max_shard_size is not None):
        raise error("invalid_argument", f"compression, level, effort, checksum and max_shard_size apply to .zt "
                                        f"output only, not .{out_format}")
    if progress is not None and not callable(progress):
        raise error("invalid_argument", "progress must be a callable(done, total) or None")
    effort = effort_name(effort)
    enc, lvl = _encoding(compression, level, None, effort)
    base = enc.split(":", 1)[0]
    shard_size = _shard_size(max_shard_size)
    encoded, cancel = None, None
    if client is not None:
        if out_format != "zt":
            raise error("invalid_argument", f"client= applies to .zt output only, not .{out_format}")
        from ._dask import encoded_hook, write_shards

        if shard_size:
            written = write_shards(client, src, dst, base, lvl, _EFFORT_TIER[effort], _checksum(checksum),
                                   bool(durable), shard_size, progress)
            if written is not None:
                objects, nbytes, warnings, src_format, files = written
                return ConvertStats(objects, nbytes, warnings, src_format, out_format, files)
        encoded, cancel = encoded_hook(client, src, base, lvl, _EFFORT_TIER[effort])
    try:
        objects, nbytes, warnings, src_format, files = _core.convert(src, dst, out_format, base, lvl,
                                                                 _EFFORT_TIER[effort], _checksum(checksum),
                                                                 bool(durable), progress, shard_size, encoded)
    finally:
        if cancel is not None:
            cancel()
    return ConvertStats(objects, nbytes, list(warnings), src_format, out_format, list(files))


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
    (and ``client``: the encoding of each runs on its workers). Each output
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
