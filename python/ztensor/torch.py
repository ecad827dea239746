"""safetensors-style helpers for torch tensors and modules.

    from ztensor.torch import save_file, load_file, save_model, load_model

load_file returns CPU tensors over a private copy-on-write mapping of the
file for raw objects (the same approach as safetensors: no copy, pages are
read on first touch, writes stay in memory and never reach the file);
compressed objects are decoded into fresh tensors.
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Set, Tuple, Union

import torch

from ._files import Compression, check_metadata, copies, is_url, save_to_bytes, write_tensors
from ._fsspec import open_any
from ._reader import Reader, load_all_torch
from ._torch_sharing import dedup, meta_names, recorded_aliases, retie, shared_groups, tied_names
from .errors import error

__all__ = ["save_file", "load_file", "save", "load", "save_model", "load_model"]


def save_file(tensors: Dict[str, torch.Tensor], filename: Union[str, os.PathLike],
              metadata: Optional[Dict[str, str]] = None, compression: Compression = None, *,
              level: Optional[int] = None, checksum: Optional[str] = None, effort: Optional[str] = None,
              durable: bool = True, max_shard_size: Optional[Union[int, str]] = None) -> None:
    """Save `tensors` to `filename`, streaming each tensor to disk. Like
    safetensors, tensors that share memory are refused (use save_model).
    `max_shard_size` (bytes, or "5GB"/"2GiB" as Hugging Face accepts) writes
    NAME-00001-of-0000N.zt ... and NAME.zt.index.json for `filename` NAME.zt.
    A `filename` ending in .safetensors gets a safetensors file, which the
    safetensors library and transformers read (raw tensors only: no
    compression, checksum or shards)."""
    for name, t in tensors.items():
        _check_tensor(name, t)
    shared = shared_groups(tensors)
    if shared:
        raise RuntimeError(
            f"Some tensors share memory, this would store them twice and break the sharing on load: {shared}. "
            "Use ztensor.torch.save_model, or clone the tensors first.")
    write_tensors(tensors, filename, metadata, compression=compression, level=level, checksum=checksum, effort=effort,
                  durable=durable, max_shard_size=max_shard_size)


def _check_tensor(name: str, t: object) -> None:
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"tensor '{name}' is a {type(t).__name__}, not a torch.Tensor")


def save(tensors: Dict[str, torch.Tensor], metadata: Optional[Dict[str, str]] = None, **kwargs) -> bytes:
    if kwargs.get("max_shard_size") is not None:  # the bytes of one file: a shard set has several
        raise TypeError("save() returns one file's bytes; max_shard_size applies to save_file")
    kwargs.setdefault("durable", False)  # a scratch file read straight back: no fsync
    return save_to_bytes(lambda path: save_file(tensors, path, metadata, **kwargs))


def load_file(filename: Union[str, os.PathLike], device: Union[str, int, torch.device] = "cpu",
              copy: bool = False, *, backend: str = "mmap",
              storage_options: Optional[Dict[str, Any]] = None, threads: int = 0) -> Dict[str, torch.Tensor]:
    """Every object of `filename` (a path or any URL ztensor.open takes, with
    its `storage_options`) as torch tensors on `device`. copy=True (or
    safetensors' backend="pread") gives tensors that own their memory instead
    of views of the private mapping (ztensor 1.2.x's copy=). Compressed
    tensors, and every tensor of a URL, are fetched and decoded on `threads`
    threads at once (0 = all cores), each into its own memory."""
    copy = copies(backend, copy)
    # A URL cannot be mapped into torch storage: verified reads make
    # load_all_torch read each tensor through the core (remote reads check
    # every digest anyway).
    with open_any(filename, verify=is_url(filename) or copy, storage_options=storage_options) as r:
        return load_all_torch(r, device, threads)


def load(data: bytes, device: Union[str, int, torch.device] = "cpu", *, threads: int = 0) -> Dict[str, torch.Tensor]:
    with Reader.from_bytes(data) as r:
        return load_all_torch(r, device, threads)


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
    for kept, aliases in dedup(state_dict).items():
        for alias in aliases:
            metadata.setdefault(alias, kept)
            del state_dict[alias]
    if force_contiguous:
        state_dict = {k: v.contiguous() for k, v in state_dict.items()}
    save_file(state_dict, filename, metadata or None, compression, level=level, checksum=checksum, effort=effort,
              durable=durable, max_shard_size=max_shard_size)


def _key_error(model: torch.nn.Module, missing: List[str], unexpected: List[str]) -> RuntimeError:
    parts = []
    if missing:
        parts.append("Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ".")
    if unexpected:
        parts.append("Unexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in unexpected) + ".")
    return RuntimeError(f"Error(s) in loading state_dict for {model.__class__.__name__}:\n\t" + "\n\t".join(parts))


def load_model(model: torch.nn.Module, filename: Union[str, os.PathLike], strict: bool = True,
               device: Union[str, int, torch.device] = "cpu", copy: bool = False, *,
               assign: bool = False, backend: str = "mmap",
               storage_options: Optional[Dict[str, Any]] = None, threads: int = 0) -> Tuple[List[str], List[str]]:
    """Load a file written by save_model (or any file ztensor.open reads)
    into `model`. Returns (missing, unexpected) keys; with strict=True either
    being non-empty is an error. For a Hugging Face model, use
    :func:`ztensor.transformers.from_pretrained`.
    `filename` may be any URL ztensor.open takes (`storage_options` as there);
    `threads` as in :func:`load_file`.

    assign=True puts the file's tensors into the model instead of copying
    them into its parameters (torch's load_state_dict(assign=True)): that is
    how a model built on the meta device (accelerate's init_empty_weights,
    ``torch.device("meta")``) is filled, without a second copy. The
    parameters then have the file's dtype, on `device`; tied weights are
    tied (those save_model stored once are tied again from its metadata). A
    model with tensors on the meta device is refused without assign
    (copying into them would do nothing), and a load that would leave any on
    the meta device raises NotFoundError (code "not_found") naming them.
    """
    on_meta = meta_names(model)
    if on_meta and not assign:
        raise error("invalid_argument", f"{type(model).__name__}: {len(on_meta)} parameters or buffers are on the "
                                        f"meta device (e.g. '{on_meta[0]}'); copying into them would load "
                                        "nothing: pass assign=True")
    copy = copies(backend, copy)
    with open_any(filename, verify=is_url(filename) or copy, storage_options=storage_options) as r:
        state_dict = load_all_torch(r, device, threads)
        attributes = r.attributes
    params = dict(model.named_parameters(remove_duplicate=False))
    recorded = recorded_aliases(attributes, state_dict, set(params))
    tied = tied_names(model) + [[kept, alias] for alias, kept in recorded.items()]
    aliases = dedup(model.state_dict(), preferred=state_dict.keys())  # tied by storage (not on meta)
    state_dict.update({alias: state_dict[kept] for alias, kept in recorded.items()})
    result = model.load_state_dict(state_dict, strict=False, assign=assign)
    if assign:
        retie(model, tied, state_dict.keys())
    missing: Set[str] = set(result.missing_keys)
    for group in tied:
        if any(n in state_dict for n in group):
            missing.difference_update(group)  # tied: loading one name filled them all
    for group in aliases.values():
        missing.difference_update(group)
    missing_list, unexpected = sorted(missing), list(result.unexpected_keys)
    if strict and (missing_list or unexpected):
        raise _key_error(model, missing_list, unexpected)
    left = meta_names(model)
    if left:
        raise error("not_found", f"'{os.fspath(filename)}' has no tensor for {len(left)} parameters or buffers of "
                                 f"{type(model).__name__} left on the meta device: " + ", ".join(left[:8])
                                 + (" ..." if len(left) > 8 else ""))
    return missing_list, unexpected
