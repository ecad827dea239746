"""Which tensors of a torch state dict or module share memory (tied
weights), for ztensor.torch's save_model/load_model: stored once, tied
again on load, also in models built on the meta device."""

from __future__ import annotations

from collections import defaultdict
from typing import Dict, Iterable, List, Set, Tuple

import torch


def _storage_key(t: torch.Tensor) -> Tuple[torch.device, int]:
    return (t.device, t.untyped_storage().data_ptr())


def shared_groups(tensors: Dict[str, torch.Tensor]) -> List[List[str]]:
    """Names whose tensors overlap in memory (tied weights), groups of >= 2.
    Tensors of one storage that do not overlap are not shared: every raw
    tensor load_file returns is a view of the one mapping of its file."""
    by_storage: Dict[Tuple[torch.device, int], List[str]] = defaultdict(list)
    for name, t in tensors.items():
        if t.layout != torch.strided or t.numel() == 0 or t.device.type == "meta":
            continue
        by_storage[_storage_key(t)].append(name)
    groups: List[List[str]] = []
    for names in by_storage.values():
        if len(names) < 2:
            continue
        spans = sorted((tensors[n].data_ptr(), _end(tensors[n]), n) for n in names)
        run, run_end = [spans[0][2]], spans[0][1]
        for start, end, name in spans[1:]:
            if start < run_end:
                run.append(name)
                run_end = max(run_end, end)
                continue
            groups.append(run)
            run, run_end = [name], end
        groups.append(run)
    return [sorted(g) for g in groups if len(g) > 1]


def _end(t: torch.Tensor) -> int:
    """One past the last byte `t` can reach."""
    reach = sum((size - 1) * stride for size, stride in zip(t.shape, t.stride()))
    return t.data_ptr() + (reach + 1) * t.element_size()


def _covers_storage(t: torch.Tensor) -> bool:
    s = t.untyped_storage()
    return (t.data_ptr() == s.data_ptr() and t.is_contiguous()
            and t.numel() * t.element_size() == s.nbytes())


def _same_view(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.data_ptr() == b.data_ptr() and a.dtype == b.dtype and a.shape == b.shape and a.stride() == b.stride()


def dedup(tensors: Dict[str, torch.Tensor], preferred: Iterable[str] = ()) -> Dict[str, List[str]]:
    """kept name -> aliases to drop, for tensors sharing memory. Names that
    are one tensor (tied weights) keep any of them; otherwise the kept name
    covers the whole storage (preferring `preferred`, then the first name),
    and a group where no tensor does cannot be stored once."""
    preferred = set(preferred)
    result = {}
    for group in shared_groups(tensors):
        first = tensors[group[0]]
        if all(_same_view(tensors[n], first) for n in group[1:]):
            complete = group
        else:
            complete = [n for n in group if _covers_storage(tensors[n])]
        if not complete:
            raise RuntimeError(
                f"tensors {group} share memory but none covers the whole storage; "
                "clone them or pass force_contiguous=True to save_model")
        keep = next((n for n in complete if n in preferred), complete[0])
        result[keep] = [n for n in group if n != keep]
    return result


def meta_names(model: torch.nn.Module) -> List[str]:
    """Parameters and buffers still on the meta device (no storage)."""
    return [n for n, t in [*model.named_parameters(), *model.named_buffers()] if t.device.type == "meta"]


def tied_names(model: torch.nn.Module) -> List[List[str]]:
    """Names bound to one Parameter object (tied weights, also on meta)."""
    groups: Dict[int, List[str]] = defaultdict(list)
    for name, p in model.named_parameters(remove_duplicate=False):
        groups[id(p)].append(name)
    return [g for g in groups.values() if len(g) > 1]


def retie(model: torch.nn.Module, tied: List[List[str]], loaded: Iterable[str]) -> None:
    """After an assigning load, bind every name of a tied group to the one
    tensor loaded for it again (assign replaced each name on its own)."""
    loaded = set(loaded)
    for group in tied:
        source = next((n for n in group if n in loaded), None)
        if source is None:
            continue
        param = model.get_parameter(source)
        for name in group:
            owner, _, attr = name.rpartition(".")
            setattr(model.get_submodule(owner), attr, param)


def recorded_aliases(attributes: Dict[str, object], loaded: Dict[str, torch.Tensor],
                      params: Set[str]) -> Dict[str, str]:
    """alias -> kept name for the tied weights save_model stored once (its
    metadata records each dropped alias, as safetensors' does), for the model's
    parameters the file does not hold. A model built under accelerate's
    init_empty_weights has lost its ties; these restore them."""
    return {alias: kept for alias, kept in attributes.items()
            if isinstance(kept, str) and alias in params and alias not in loaded and kept in loaded}
