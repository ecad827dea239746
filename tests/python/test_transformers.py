"""ztensor.transformers: save_pretrained / from_pretrained against
transformers' own from_pretrained of the same weights as safetensors, with
tiny models built from configs (no hub: HF_HUB_OFFLINE=1)."""

import json
import os
import shutil
import subprocess
import sys

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"  # before transformers is imported: never the network

import ztensor
import ztensor.torch

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("accelerate")
from ztensor.transformers import from_pretrained, save_pretrained  # noqa: E402

from _cli import ZT, needs_zt  # noqa: E402

IDS = torch.tensor([[1, 5, 9, 2, 7, 3]])


def _llama(tied):
    return transformers.LlamaForCausalLM(transformers.LlamaConfig(
        vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=64, tie_word_embeddings=tied))


def _bert():
    return transformers.BertForMaskedLM(transformers.BertConfig(
        vocab_size=64, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
        max_position_embeddings=32))


def _gpt2():
    return transformers.GPT2LMHeadModel(transformers.GPT2Config(vocab_size=64, n_embd=32, n_layer=2, n_head=4,
                                                                n_positions=32))


MODELS = {"llama_tied": lambda: _llama(True), "llama_untied": lambda: _llama(False), "bert": _bert, "gpt2": _gpt2}


def _trained_like(build):
    """A model whose every parameter differs from its fresh initialisation
    (norms are not all ones, biases not zeros), so a tensor the loader missed
    cannot pass for a loaded one."""
    torch.manual_seed(0)
    model = build().eval()
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.05)
    return model


@pytest.fixture(scope="module", params=sorted(MODELS))
def original(request, tmp_path_factory):
    """(name, model, its transformers safetensors folder)."""
    model = _trained_like(MODELS[request.param])
    folder = tmp_path_factory.mktemp(request.param) / "safetensors"
    model.save_pretrained(folder)
    return request.param, model, folder


def _logits(model):
    with torch.no_grad():
        return model(IDS).logits


def _tied_pairs(model):
    groups = {}
    for name, p in model.named_parameters(remove_duplicate=False):
        groups.setdefault(id(p), []).append(name)
    return sorted(sorted(g) for g in groups.values() if len(g) > 1)


def assert_same_model(ours, ref):
    """Bit for bit: class, tensors with their dtypes, ties, outputs, mode, configs."""
    assert type(ours) is type(ref)
    a, b = ours.state_dict(), ref.state_dict()
    assert a.keys() == b.keys()
    for k in a:
        assert a[k].dtype == b[k].dtype and torch.equal(a[k], b[k]), k
    assert _tied_pairs(ours) == _tied_pairs(ref)
    assert not ours.training and not ref.training
    assert torch.equal(_logits(ours), _logits(ref))
    skip = {"_name_or_path", "name_or_path"}
    assert ({k: v for k, v in ours.config.to_dict().items() if k not in skip}
            == {k: v for k, v in ref.config.to_dict().items() if k not in skip})
    if ref.can_generate():
        assert ours.generation_config.to_dict() == ref.generation_config.to_dict()


@pytest.mark.parametrize("compression,max_shard_size", [(None, None), ("zstd", None), ("z4ai", "20KB")])
def test_save_pretrained_loads_as_transformers_loads_safetensors(original, tmp_path, compression, max_shard_size):
    name, model, st_folder = original
    save_pretrained(model, tmp_path / "zt", compression=compression, max_shard_size=max_shard_size,
                    checksum="crc32c")
    files = sorted(os.listdir(tmp_path / "zt"))
    assert "config.json" in files and ("generation_config.json" in files) == model.can_generate()
    if max_shard_size is None:
        assert "model.zt" in files and not any(f.endswith(".safetensors") for f in files)
    else:
        assert "model.zt.index.json" in files and "model-00001-of-" in " ".join(files)
    ref = type(model).from_pretrained(st_folder)
    assert_same_model(from_pretrained(tmp_path / "zt"), ref)
    assert torch.equal(_logits(ref), _logits(model))  # and both are the model that was saved


def test_save_pretrained_stores_tied_weights_once_as_transformers(original, tmp_path):
    name, model, st_folder = original
    save_pretrained(model, tmp_path / "zt")
    from safetensors import safe_open

    with safe_open(str(st_folder / "model.safetensors"), framework="pt") as f:
        expected = sorted(f.keys())
    with ztensor.open(tmp_path / "zt" / "model.zt") as r:
        assert sorted(r.keys()) == expected
        assert r.attributes == {"format": "pt"}


@needs_zt
def test_loads_the_folder_zt_convert_writes(original, tmp_path):
    name, model, st_folder = original
    out = tmp_path / "converted"
    subprocess.run([ZT, "convert", str(st_folder), str(out)], check=True, capture_output=True, timeout=300)
    assert (out / "model.zt").is_file() and (out / "config.json").is_file()
    assert_same_model(from_pretrained(out), type(model).from_pretrained(st_folder))


def test_loads_a_plain_safetensors_folder(original):
    name, model, st_folder = original
    assert_same_model(from_pretrained(st_folder), type(model).from_pretrained(st_folder))


def test_raw_tensors_are_assigned_from_the_mapping_not_copied(original, tmp_path):
    """Built on meta, the file's tensors assigned: every parameter is a view
    of the one private mapping of model.zt (but those transformers ties again
    itself, which it may rebind)."""
    name, model, _ = original
    save_pretrained(model, tmp_path / "zt")
    loaded = from_pretrained(tmp_path / "zt")
    size = os.path.getsize(tmp_path / "zt" / "model.zt")
    retied = {n for pair in (getattr(loaded, "_tied_weights_keys", None) or {}).items() for n in pair}
    mapped = {n: p.untyped_storage().nbytes() == size for n, p in loaded.named_parameters()}
    assert all(ok for n, ok in mapped.items() if n not in retied), mapped
    assert len({p.untyped_storage().data_ptr() for n, p in loaded.named_parameters() if n not in retied}) == 1


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, "auto", "float16"])
def test_torch_dtype_is_honoured(original, tmp_path, dtype):
    name, model, st_folder = original
    save_pretrained(model, tmp_path / "zt")
    ours = from_pretrained(tmp_path / "zt", torch_dtype=dtype)
    assert_same_model(ours, type(model).from_pretrained(st_folder, dtype=dtype))
    if dtype != "auto":
        assert next(ours.parameters()).dtype == getattr(torch, dtype) if isinstance(dtype, str) else dtype


def test_auto_class_defaults_from_config_and_can_be_chosen(original, tmp_path):
    name, model, st_folder = original
    save_pretrained(model, tmp_path / "zt")
    assert type(from_pretrained(tmp_path / "zt")) is type(model)
    torch.manual_seed(1)  # a head the checkpoint lacks (BERT's pooler) is drawn at random by both
    base = from_pretrained(tmp_path / "zt", auto_class=transformers.AutoModel)
    torch.manual_seed(1)
    ref = transformers.AutoModel.from_pretrained(st_folder)
    assert type(base) is type(ref)
    a, b = base.state_dict(), ref.state_dict()
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    assert type(from_pretrained(tmp_path / "zt", auto_class="AutoModel")) is type(ref)


def test_device_map_offloads_through_accelerate(original, tmp_path):
    """accelerate's big-model path: with too little memory for the whole
    model, device_map="auto" puts layers on "disk" (hooks load them per
    forward); the outputs equal transformers' own load with the same map."""
    name, model, st_folder = original
    save_pretrained(model, tmp_path / "zt")
    size = sum(p.numel() * p.element_size() for p in model.parameters())
    options = dict(device_map="auto", max_memory={"cpu": size // 3}, offload_folder=str(tmp_path / "offload"))
    ours = from_pretrained(tmp_path / "zt", **options)
    ref = type(model).from_pretrained(st_folder, **{**options, "offload_folder": str(tmp_path / "offload_ref")})
    assert "disk" in set(ours.hf_device_map.values())
    assert ours.hf_device_map == ref.hf_device_map
    assert torch.equal(_logits(ours), _logits(ref))


def test_device_map_cpu(original, tmp_path):
    name, model, st_folder = original
    save_pretrained(model, tmp_path / "zt")
    assert_same_model(from_pretrained(tmp_path / "zt", device_map="cpu"),
                      type(model).from_pretrained(st_folder, device_map="cpu"))


def test_generate_matches(tmp_path):
    model = _trained_like(MODELS["llama_tied"])
    model.save_pretrained(tmp_path / "st")
    save_pretrained(model, tmp_path / "zt")
    ref = type(model).from_pretrained(tmp_path / "st")
    ours = from_pretrained(tmp_path / "zt")
    kw = dict(max_new_tokens=8, do_sample=False, pad_token_id=0)
    assert torch.equal(ours.generate(IDS, **kw), ref.generate(IDS, **kw))


def test_loads_from_an_http_url(tmp_path):
    from _servers import Nginx

    model = _trained_like(MODELS["gpt2"])
    save_pretrained(model, tmp_path / "www" / "m", compression="zstd", max_shard_size="40KB")
    (tmp_path / "nginx").mkdir()
    server = Nginx(tmp_path / "www", tmp_path / "nginx")
    try:
        ours = from_pretrained(server.url("m"))
        assert ours.config.name_or_path == server.url("m")
        fetched = {request.split()[1] for request, *_ in server.requests()}
        assert {"/m/config.json", "/m/model.zt.index.json"} <= fetched and "/m/model.zt" not in fetched
        with pytest.raises(ztensor.NotFoundError, match="config.json"):
            from_pretrained(server.url("absent"))
        (tmp_path / "www" / "bad").mkdir()
        (tmp_path / "www" / "bad" / "config.json").write_text("{not json")
        with pytest.raises(ztensor.ZTensorError, match="not JSON") as e:
            from_pretrained(server.url("bad"))
        assert e.value.code == "invalid_argument"
        (tmp_path / "www" / "bad" / "config.json").write_text("{}")
        with pytest.raises(ztensor.NotFoundError, match="holds no weights"):
            from_pretrained(server.url("bad"))
        shutil.copy(tmp_path / "www" / "m" / "model.zt.index.json", tmp_path / "www" / "bad")
        with pytest.raises(ztensor.ZTensorError, match="model_type") as e:
            from_pretrained(server.url("bad"))
        assert e.value.code == "invalid_argument"
    finally:
        server.stop()
    model.save_pretrained(tmp_path / "st")
    assert_same_model(ours, type(model).from_pretrained(tmp_path / "st"))


def test_loads_from_an_fsspec_url(tmp_path):
    fsspec = pytest.importorskip("fsspec")
    model = _trained_like(MODELS["bert"])
    save_pretrained(model, tmp_path / "zt")
    fs = fsspec.filesystem("memory")
    for name in os.listdir(tmp_path / "zt"):
        fs.pipe(f"/hf-test/{name}", (tmp_path / "zt" / name).read_bytes())
    try:
        ours = from_pretrained("memory://hf-test")
    finally:
        fs.rm("/hf-test", recursive=True)
    model.save_pretrained(tmp_path / "st")
    assert_same_model(ours, type(model).from_pretrained(tmp_path / "st"))


def test_transformers_reads_the_safetensors_ztensor_torch_writes(tmp_path):
    """ztensor.torch.save_file to a .safetensors path writes what transformers' own loader reads."""
    model = _trained_like(MODELS["llama_untied"])
    model.config.save_pretrained(tmp_path / "m")
    ztensor.torch.save_file({k: v.contiguous() for k, v in model.state_dict().items()},
                            tmp_path / "m" / "model.safetensors", metadata={"format": "pt"})
    assert torch.equal(_logits(type(model).from_pretrained(tmp_path / "m")), _logits(model))


def test_prefers_zt_over_safetensors_in_one_folder(tmp_path):
    a, b = _trained_like(MODELS["gpt2"]), _trained_like(MODELS["gpt2"])
    with torch.no_grad():
        b.lm_head.weight.mul_(2)
    a.save_pretrained(tmp_path / "m")
    save_pretrained(b, tmp_path / "m")
    assert torch.equal(_logits(from_pretrained(tmp_path / "m")), _logits(b))


def test_errors_are_coded(tmp_path):
    with pytest.raises(ztensor.ZTensorError) as e:
        from_pretrained(tmp_path / "absent")
    assert e.value.code == "io_error" and isinstance(e.value, FileNotFoundError)
    (tmp_path / "empty").mkdir()
    with pytest.raises(ztensor.NotFoundError, match="holds no weights"):
        from_pretrained(tmp_path / "empty")
    model = _trained_like(MODELS["gpt2"])
    save_pretrained(model, tmp_path / "noconfig")
    os.remove(tmp_path / "noconfig" / "config.json")
    with pytest.raises(ztensor.NotFoundError, match="config.json"):
        from_pretrained(tmp_path / "noconfig")
    save_pretrained(model, tmp_path / "arch")
    config = json.loads((tmp_path / "arch" / "config.json").read_text())
    config["architectures"] = ["NoSuchModelForCausalLM"]
    (tmp_path / "arch" / "config.json").write_text(json.dumps(config))
    with pytest.raises(ztensor.UnsupportedError, match="NoSuchModelForCausalLM"):
        from_pretrained(tmp_path / "arch")
    with pytest.raises(ztensor.ZTensorError, match="auto_class 'NoSuchAuto'"):
        from_pretrained(tmp_path / "arch", auto_class="NoSuchAuto")


def test_device_map_without_accelerate_is_a_coded_error(tmp_path):
    """In a fresh interpreter where accelerate cannot be imported."""
    save_pretrained(_trained_like(MODELS["gpt2"]), tmp_path / "m")
    script = ("import sys\n"
              "sys.modules['accelerate'] = None  # import accelerate now fails, as when it is not installed\n"
              "import ztensor, ztensor.transformers as zt\n"
              f"try:\n    zt.from_pretrained({str(tmp_path / 'm')!r}, device_map='auto')\n"
              "except ztensor.UnsupportedError as e:\n    print(e.code, e)\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert out.stdout.startswith("unsupported") and "accelerate" in out.stdout, out.stdout + out.stderr
