"""safetensors-style helpers for torch tensors and modules.

    from ztensor.torch import save_file, load_file, save_model, load_model

load_file returns CPU tensors over a private copy-on-write mapping of the
file for raw objects (the same approach as safetensors: no copy, pages are
read on first touch, writes stay in memory and never reach the file);
compressed objects are decoded into fresh tensors.
"""

from __future__ import annotations

import os
from collections import defaultdict
from typing import Any, Dict, Iterable, List, Optional, Set, Tuple, Union

import torch

from ._files import Compression, check_metadata, is_url, save_to_bytes
from ._fsspec import open_any
from ._reader import Reader, load_all_torch
from ._writer import Writer

__all__ = ["save_file", "load_file", "save", "load", "save_model", "load_model"]


def _storage_key(t: torch.Tensor):
    return (t.device, t.untyped_storage().data_ptr())


def _shared_groups(tensors: Dict[str, torch.Tensor]) -> List[List[str]]:
    """Names whose tensors share storage (tied weights), groups of >= 2."""
    groups = defaultdict(list)
    for name, t in tensors.items():
        if t.layout != torch.strided or t.numel() == 0 or t.device.type == "meta":
            continue
        groups[_storage_key(t)].append(name)
    return [sorted(g) for g in groups.values() if len(g) > 1]


def _covers_storage(t: torch.Tensor) -> bool:
    s = t.untyped_storage()
    return (t.data_ptr() == s.data_ptr() and t.is_contiguous()
            and t.numel() * t.element_size() == s.nbytes())


def _dedup(tensors: Dict[str, torch.Tensor], preferred: Iterable[str] = ()) -> Dict[str, List[str]]:
    """kept name -> aliases to drop, for tensors sharing one storage. The kept
    name covers the whole storage (preferring `preferred`, then the first
    name); a group where no tensor does cannot be stored once."""
    preferred = set(preferred)
    result = {}
    for group in _shared_groups(tensors):
        complete = [n for n in group if _covers_storage(tensors[n])]
        if not complete:
            raise RuntimeError(
                f"tensors {group} share memory but none covers the whole storage; "
                "clone them or pass force_contiguous=True to save_model")
        keep = next((n for n in complete if n in preferred), complete[0])
        result[keep] = [n for n in group if n != keep]
    return result


def save_file(tensors: Dict[str, torch.Tensor], filename: Union[str, os.PathLike],
              metadata: Optional[Dict[str, str]] = None, compression: Compression = None, *,
              level: Optional[int] = None, checksum: Optional[str] = None, effort: Optional[str] = None,
              durable: bool = True, max_shard_size: Optional[Union[int, str]] = None) -> None:
    """Save `tensors` to `filename`, streaming each tensor to disk. Like
    safetensors, tensors that share memory are refused (use save_model).
    `max_shard_size` (bytes, or "5GB"/"2GiB" as Hugging Face accepts) writes
    NAME-00001-of-0000N.zt ... and NAME.zt.index.json for `filename` NAME.zt."""
    shared = _shared_groups(tensors)
    if shared:
        raise RuntimeError(
            f"Some tensors share memory, this would store them twice and break the sharing on load: {shared}. "
            "Use ztensor.torch.save_model, or clone the tensors first.")
    with Writer(filename, attributes=check_metadata(metadata), durable=durable, max_shard_size=max_shard_size) as w:
        for name, t in tensors.items():
            if not isinstance(t, torch.Tensor):
                raise TypeError(f"tensor '{name}' is a {type(t).__name__}, not a torch.Tensor")
            w.add(name, t, compression=compression, level=level, checksum=checksum, effort=effort)


def save(tensors: Dict[str, torch.Tensor], metadata: Optional[Dict[str, str]] = None, **kwargs) -> bytes:
    if kwargs.get("max_shard_size") is not None:  # the bytes of one file: a shard set has several
        raise TypeError("save() returns one file's bytes; max_shard_size applies to save_file")
    kwargs.setdefault("durable", False)  # a scratch file read straight back: no fsync
    return save_to_bytes(lambda path: save_file(tensors, path, metadata, **kwargs))


def load_file(filename: Union[str, os.PathLike], device: Union[str, int, torch.device] = "cpu",
              copy: bool = False, *, storage_options: Optional[Dict[str, Any]] = None) -> Dict[str, torch.Tensor]:
    """Every object of `filename` (a path or any URL ztensor.open takes, with
    its `storage_options`) as torch tensors on `device`. copy=True gives
    tensors that own their memory instead of views of the private mapping
    (ztensor 1.2.x's copy=)."""
    # A URL cannot be mapped into torch storage: verified reads make
    # load_all_torch read each tensor through the core (remote reads check
    # every digest anyway).
    with open_any(filename, verify=is_url(filename) or copy, storage_options=storage_options) as r:
        return load_all_torch(r, device)


def load(data: bytes, device: Union[str, int, torch.device] = "cpu") -> Dict[str, torch.Tensor]:
    with Reader.from_bytes(data) as r:
        return load_all_torch(r, device)


def save_model(model: torch.nn.Module, filename: Union[str, os.PathLike],
               metadata: Optional[Dict[str, str]] = None, force_contiguous: bool = False, *,
               compression: Compression = None, level: Optional[int] = None, effort: Optional[str] = None,
               checksum: Optional[str] = None, durable: bool = True,
               max_shard_size: Optional[Union[int, str]] = None) -> None:
    """Save a module's state_dict. Tied weights are stored once; each dropped
    alias is recorded in the metadata as alias -> kept name (as safetensors).
    `compression`, `level`, `effort` and `checksum` apply to every tensor as
    in :func:`save_file` (e.g. compression="z4ai", effort="balanced");
    `max_shard_size` shards the file as :func:`save_file` does."""
    state_dict = model.state_dict()
    metadata = dict(check_metadata(metadata) or {})
    for kept, aliases in _dedup(state_dict).items():
        for alias in aliases:
            metadata.setdefault(alias, kept)
            del state_dict[alias]
    if force_contiguous:
        state_dict = {k: v.contiguous() for k, v in state_dict.items()}
    save_file(state_dict, filename, metadata or None, compression, level=level, checksum=checksum, effort=effort,
              durable=durable, max_shard_size=max_shard_size)


def load_model(model: torch.nn.Module, filename: Union[str, os.PathLike], strict: bool = True,
               device: Union[str, int, torch.device] = "cpu", copy: bool = False, *,
               storage_options: Optional[Dict[str, Any]] = None) -> Tuple[List[str], List[str]]:
    """Load a file written by save_model (or any file ztensor.open reads)
    into `model`. Returns (missing, unexpected) keys; with strict=True either
    being non-empty is an error. For a Hugging Face model, build it with
    ``AutoModel.from_config(config)`` and call ``load_model(model, path,
    strict=False)``: buffers transformers recomputes are not in the file.
    `filename` may be any URL ztensor.open takes (`storage_options` as there)."""
    state_dict = load_file(filename, device=device, copy=copy, storage_options=storage_options)
    aliases = _dedup(model.state_dict(), preferred=state_dict.keys())
    result = model.load_state_dict(state_dict, strict=False)
    missing: Set[str] = set(result.missing_keys)
    unexpected = list(result.unexpected_keys)
    for group in aliases.values():
        for alias in group:
            missing.discard(alias)  # tied: loading the kept name filled it
    missing_list = sorted(missing)
    if strict and (missing_list or unexpected):
        parts = []
        if missing_list:
            parts.append("Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing_list) + ".")
        if unexpected:
            parts.append("Unexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in unexpected) + ".")
        raise RuntimeError(f"Error(s) in loading state_dict for {model.__class__.__name__}:\n\t" + "\n\t".join(parts))
    return missing_list, unexpected
