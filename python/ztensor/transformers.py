"""Hugging Face transformers models saved as .zt and loaded back.

    from ztensor.transformers import from_pretrained, save_pretrained
    save_pretrained(model, "my-model", compression="z4ai")   # config.json + model.zt
    model = from_pretrained("my-model", torch_dtype=torch.bfloat16)

``from_pretrained`` reads a folder ``save_pretrained`` wrote, one ``zt
convert HF_DIR OUT`` wrote, or a plain safetensors folder, locally or at an
http(s) or fsspec URL. The weights are read by ztensor (raw tensors of a
local file are views of its mapping, not copies) and handed to transformers'
own loader as a state dict: it builds the model on the meta device, assigns
the tensors, ties the weights and applies ``torch_dtype`` and ``device_map``
(through accelerate) exactly as its ``from_pretrained`` does.
"""

from __future__ import annotations

import importlib.util
import os
from typing import TYPE_CHECKING, Any, Dict, Optional, Union

import torch

from ._files import Compression
from ._hf_folder import ModelFolder
from ._reader import load_all_torch
from .errors import error
from .torch import save_file

if TYPE_CHECKING:
    from transformers import PreTrainedModel

__all__ = ["save_pretrained", "from_pretrained"]

# What save_pretrained names the weights (transformers' "model.safetensors" stem).
WEIGHTS_NAME = "model.zt"
# The metadata transformers writes into every weights file it saves.
WEIGHTS_METADATA = {"format": "pt"}


def _state_dict_to_save(model: PreTrainedModel) -> Dict[str, torch.Tensor]:
    """The tensors transformers' save_pretrained would write: tied copies and
    ignored keys dropped, load-time weight conversions reverted."""
    from transformers.core_model_loading import revert_weight_conversion
    from transformers.modeling_utils import remove_tied_weights_from_state_dict

    state_dict = model.state_dict()
    for key in getattr(model, "_keys_to_ignore_on_save", None) or ():
        state_dict.pop(key, None)
    state_dict = remove_tied_weights_from_state_dict(state_dict, model)
    state_dict = revert_weight_conversion(model, state_dict)
    on_meta = [k for k, t in state_dict.items() if t.device.type == "meta"]
    if on_meta:
        raise error("invalid_argument", f"{type(model).__name__}: {len(on_meta)} tensors are on the meta device "
                                        f"(offloaded or never loaded), e.g. '{on_meta[0]}'; nothing to save")
    return {k: t.contiguous() for k, t in state_dict.items()}


def save_pretrained(model: PreTrainedModel, folder: Union[str, os.PathLike], compression: Compression = None,
                    max_shard_size: Optional[Union[int, str]] = None, checksum: Optional[str] = None, *,
                    level: Optional[int] = None, effort: Optional[str] = None, durable: bool = True) -> None:
    """Write a transformers model to ``folder``: ``config.json`` (and
    ``generation_config.json`` for a model that generates), as transformers'
    ``save_pretrained`` writes them, and the weights as ``model.zt``, or with
    ``max_shard_size`` (bytes, or "5GB"/"2GiB") as ``model-00001-of-0000N.zt``
    ... plus ``model.zt.index.json`` when they do not fit in one shard.

    The tensors are those transformers would save (tied weights once, under
    the name it keeps); ``compression`` None/"zstd"/"z4ai" (``level``,
    ``effort``) and ``checksum`` None/"sha256"/"crc32c" apply to each. The
    weights are published atomically (see :func:`ztensor.torch.save_file`),
    before the config files, so a failed save never leaves a config naming
    weights that are not there. Like transformers, this records the model's
    dtype and class in its config (``config.dtype``, ``config.architectures``).
    """
    if not (hasattr(model, "config") and hasattr(model.config, "save_pretrained") and hasattr(model, "state_dict")):
        raise TypeError(f"save_pretrained takes a transformers PreTrainedModel, not {type(model).__name__}")
    folder = os.fspath(folder)
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise error("invalid_argument", f"'{folder}' exists and is not a folder")
    os.makedirs(folder, exist_ok=True)
    tensors = _state_dict_to_save(model)
    save_file(tensors, os.path.join(folder, WEIGHTS_NAME), dict(WEIGHTS_METADATA), compression, level=level,
              checksum=checksum, effort=effort, durable=durable, max_shard_size=max_shard_size)
    model.config.dtype = str(model.dtype).split(".")[1]
    model.config.architectures = [type(model).__name__]
    model.config.save_pretrained(folder)
    if model.can_generate() and model.generation_config is not None:
        model.generation_config.save_pretrained(folder)


def _model_class(config: Any, auto_class: Any) -> Any:
    """The concrete model class: ``auto_class`` (a class or its name in the
    transformers namespace; an Auto class resolves through the config), else
    the config's first architecture, else AutoModel's class for the config."""
    import transformers

    if auto_class is None:
        archs = list(getattr(config, "architectures", None) or [])
        if not archs:
            auto_class = transformers.AutoModel
        else:
            found = getattr(transformers, archs[0], None)
            if found is None:
                raise error("unsupported", f"config.json names architecture '{archs[0]}', which transformers "
                                           f"{transformers.__version__} does not have; pass auto_class=")
            auto_class = found
    if isinstance(auto_class, str):
        name = auto_class
        auto_class = getattr(transformers, name, None)
        if auto_class is None:
            raise error("invalid_argument", f"auto_class '{name}' is not a class of transformers")
    mapping = getattr(auto_class, "_model_mapping", None)
    if mapping is None:
        return auto_class
    from transformers.models.auto.auto_factory import _get_model_class

    try:
        return _get_model_class(config, mapping)
    except KeyError:
        raise error("unsupported", f"{auto_class.__name__} has no model for {type(config).__name__}") from None


def _config(config_class: Any, folder: ModelFolder) -> Any:
    """transformers' config (or generation config) of the folder; its refusal
    of a malformed file becomes an invalid_argument naming the folder."""
    try:
        return config_class.from_pretrained(folder.config_dir)
    except (ValueError, OSError) as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise error("invalid_argument", f"model folder '{folder.location}': {config_class.__name__} refuses its "
                                        f"config: {first}") from None


def _check_device_map(device_map: Any) -> None:
    if device_map is not None and importlib.util.find_spec("accelerate") is None:
        raise error("unsupported", f"device_map={device_map!r} places the model through accelerate, which is not "
                                   "installed (pip install accelerate)")


def _complete_offload_index(model: Any) -> None:
    """Make tied weights that accelerate offloaded to disk readable. For
    weights given as a state dict, transformers re-saves each offloaded
    tensor but leaves the tied names out of accelerate's offload index (it
    adds them only when it maps a safetensors checkpoint), so a forward pass
    raised KeyError. Each tied name gets its source's entry, as transformers
    does for safetensors checkpoints."""
    tied = getattr(model, "all_tied_weights_keys", None) or {}
    for module in model.modules():
        loader = getattr(getattr(getattr(module, "_hf_hook", None), "weights_map", None), "dataset", None)
        index = getattr(loader, "index", None)
        if isinstance(index, dict):
            for target, source in tied.items():
                if source in index and target not in index:
                    index[target] = index[source]


def from_pretrained(folder_or_url: Union[str, os.PathLike], auto_class: Any = None, torch_dtype: Any = None,
                    device_map: Any = None, *, config: Any = None, verify: bool = False,
                    storage_options: Optional[Dict[str, Any]] = None, threads: int = 0,
                    **kwargs: Any) -> PreTrainedModel:
    """Load the model in ``folder_or_url`` (a folder, an http(s) URL or an
    fsspec URL of one): ``config.json``, ``generation_config.json`` when
    present, and the weights as ``model.zt.index.json`` + shards, ``model.zt``,
    ``model.safetensors.index.json`` + shards or ``model.safetensors``, taken
    in that order (a local folder may use another NAME in place of "model").

    ``auto_class`` (a class such as ``AutoModelForCausalLM`` or
    ``LlamaModel``, or its name) defaults to the config's first
    ``architectures`` entry. ``torch_dtype`` (a ``torch.dtype``, its name, or
    "auto"; transformers' ``dtype``) and ``device_map`` ("auto", "cpu", a
    dict...; needs accelerate) mean what they mean to transformers'
    ``from_pretrained``, and other keyword arguments (``max_memory``,
    ``offload_folder``, ``attn_implementation``...) are passed to it.
    ``config`` replaces the folder's config.json. ``verify=True`` also checks
    the digests of raw .zt tensors as they are read (compressed ones are
    always checked); remote tensors are always checked and read into memory.
    Compressed and remote tensors are fetched and decoded on ``threads``
    threads at once (0 = all cores).
    Returns the model in eval mode, as transformers does.

    Errors are ZTensorErrors with a ``.code``: ``not_found`` (no config.json,
    no weights), ``io_error``, ``unsupported`` (an architecture transformers
    lacks, device_map without accelerate), and every error of reading the
    weights.
    """
    import transformers

    if "dtype" in kwargs:  # transformers 5's name for torch_dtype
        if torch_dtype is not None:
            raise TypeError("from_pretrained got both torch_dtype and dtype")
        torch_dtype = kwargs.pop("dtype")
    _check_device_map(device_map)
    with ModelFolder(folder_or_url, storage_options) as folder:
        weights = folder.weights()  # before the config: a folder without weights says so first
        if config is None:
            config = _config(transformers.AutoConfig, folder)
        model_class = _model_class(config, auto_class)
        if folder.has_generation_config and "generation_config" not in kwargs:
            kwargs["generation_config"] = _config(transformers.GenerationConfig, folder)
        with folder.open_weights(weights, verify=verify) as source:
            state_dict = load_all_torch(source, "cpu", threads)
    if torch_dtype is not None:
        kwargs["dtype"] = torch_dtype
    model = model_class.from_pretrained(None, config=config, state_dict=state_dict, device_map=device_map, **kwargs)
    del state_dict  # the model holds the tensors it kept
    if "disk" in set((getattr(model, "hf_device_map", None) or {}).values()):
        _complete_offload_index(model)
    model.config.name_or_path = os.fspath(folder_or_url)
    return model
