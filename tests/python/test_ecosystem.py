"""PyTorch / Hugging Face workflows: save_model with the codec,
loading into a model built from its config, ztensor.open on .zstn, and the
safetensors-style safe_open alias."""

import numpy as np
import pytest

import ztensor

torch = pytest.importorskip("torch")
safetensors_numpy = pytest.importorskip("safetensors.numpy")


class TinyConfig:
    def __init__(self, vocab=50, hidden=16, layers=2):
        self.vocab, self.hidden, self.layers = vocab, hidden, layers


class TinyLM(torch.nn.Module):
    """Built from a config like a transformers model: tied embedding/head and
    a non-persistent buffer the model recomputes (not saved)."""

    def __init__(self, config):
        super().__init__()
        self.embed = torch.nn.Embedding(config.vocab, config.hidden)
        self.layers = torch.nn.ModuleList(torch.nn.Linear(config.hidden, config.hidden) for _ in range(config.layers))
        self.head = torch.nn.Linear(config.hidden, config.vocab, bias=False)
        self.head.weight = self.embed.weight
        self.register_buffer("position_ids", torch.arange(8), persistent=False)

    @classmethod
    def from_config(cls, config):
        return cls(config)

    def forward(self, ids):
        x = self.embed(ids)
        for layer in self.layers:
            x = torch.relu(layer(x))
        return self.head(x)


@pytest.mark.parametrize("compression,effort", [("z4ai", "balanced"), ("z4ai", "default"), ("zstd", None), (True, None)])
def test_save_model_with_codec_loads_into_model_from_config(tmp_path, compression, effort):
    from ztensor.torch import load_model, save_model

    torch.manual_seed(0)
    config = TinyConfig()
    model = TinyLM.from_config(config)
    path = tmp_path / "tiny.zt"
    save_model(model, path, compression=compression, effort=effort, checksum="sha256")
    with ztensor.open(path) as r:
        c = r.object("layers.0.weight").components["data"]
        assert c.encoding == ("zstd" if compression is True else compression)
        assert c.digest.startswith("sha256:")
        r.verify()
    fresh = TinyLM.from_config(config)
    missing, unexpected = load_model(fresh, path, strict=False)
    assert (missing, unexpected) == ([], [])
    ids = torch.tensor([[1, 2, 3]])
    assert torch.equal(fresh(ids), model(ids))
    assert fresh.head.weight.data_ptr() == fresh.embed.weight.data_ptr()  # still tied


def test_save_model_refuses_unknown_effort(tmp_path):
    from ztensor.torch import save_model

    with pytest.raises(ztensor.ZTensorError, match="effort"):
        save_model(torch.nn.Linear(2, 2), tmp_path / "x.zt", compression="z4ai", effort="fastest")


def test_transformers_model_from_config(tmp_path):
    transformers = pytest.importorskip("transformers")
    from ztensor.torch import load_model, save_model

    config = transformers.BertConfig(vocab_size=64, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                                     intermediate_size=32, max_position_embeddings=16)
    torch.manual_seed(0)
    model = transformers.BertModel(config).eval()
    save_model(model, tmp_path / "bert.zt", compression="z4ai")
    fresh = transformers.AutoModel.from_config(config).eval()
    load_model(fresh, tmp_path / "bert.zt", strict=False)
    ids = torch.tensor([[1, 5, 9, 2]])
    assert torch.equal(fresh(ids).last_hidden_state, model(ids).last_hidden_state)


def _safetensors_file(path):
    rng = np.random.default_rng(0)
    tensors = {"b.bias": rng.standard_normal(5).astype(np.float32),
               "a.weight": rng.standard_normal((7, 5)).astype(np.float16),
               "tied": np.arange(12, dtype=np.int32).reshape(3, 4),
               "tied2": np.arange(12, dtype=np.int32).reshape(3, 4)}
    safetensors_numpy.save_file(tensors, str(path), metadata={"format": "pt"})
    return tensors


def test_open_reads_zstn_lazily(tmp_path):
    from z4ai.safetensors import compress_file

    src = tmp_path / "m.safetensors"
    tensors = _safetensors_file(src)
    zstn = tmp_path / "m.zstn"
    compress_file(str(src), str(zstn))
    with ztensor.open(zstn) as r:
        assert r.format == "safetensors"
        assert sorted(r.keys()) == sorted(tensors)
        for name, want in tensors.items():
            got = r.read(name)
            assert got.dtype == want.dtype and np.array_equal(got, want)
        assert r.attributes.get("format") == "pt"
    assert set(ztensor.numpy.load_file(zstn)) == set(tensors)
    t = ztensor.torch.load_file(zstn)
    assert torch.equal(t["tied"], torch.from_numpy(tensors["tied"]))


def test_open_zstn_slices_one_tensor(tmp_path):
    from z4ai.safetensors import compress_file

    src = tmp_path / "m.safetensors"
    tensors = _safetensors_file(src)
    compress_file(str(src), str(tmp_path / "m.zstn"))
    with ztensor.open(tmp_path / "m.zstn") as r:
        assert np.array_equal(r.get_slice("a.weight")[2:4], tensors["a.weight"][2:4])


@pytest.mark.parametrize("framework", ["pt", "np"])
def test_safe_open_matches_safetensors(tmp_path, framework):
    from safetensors import safe_open as st_safe_open

    src = tmp_path / "m.safetensors"
    _safetensors_file(src)
    with st_safe_open(str(src), framework=framework, device="cpu") as ref, \
            ztensor.safe_open(src, framework=framework, device="cpu") as ours:
        assert sorted(ours.keys()) == sorted(ref.keys())
        assert ours.metadata() == ref.metadata()
        for k in ref.keys():
            a, b = ours.get_tensor(k), ref.get_tensor(k)
            assert type(a) is type(b)
            assert a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape)
            assert (torch.equal(a, b) if framework == "pt" else np.array_equal(a, b))
        s_ours, s_ref = ours.get_slice("a.weight"), ref.get_slice("a.weight")
        assert s_ours.get_shape() == s_ref.get_shape()
        a, b = s_ours[1:3], s_ref[1:3]
        assert (torch.equal(a, b) if framework == "pt" else np.array_equal(a, b))


def test_safe_open_reads_zt_and_refuses_unknown_framework(tmp_path):
    from ztensor.torch import save_file

    save_file({"w": torch.ones(2, 2)}, tmp_path / "m.zt", metadata={"k": "v"})
    with ztensor.safe_open(tmp_path / "m.zt", framework="pt") as f:
        assert torch.equal(f.get_tensor("w"), torch.ones(2, 2))
        assert f.metadata() == {"k": "v"}
    with pytest.raises(ztensor.UnsupportedError, match="framework"):
        ztensor.safe_open(tmp_path / "m.zt", framework="tf")


def test_effort_default_is_an_alias_of_fast_everywhere(tmp_path):
    import z4ai

    data = np.linspace(-1, 1, 4096, dtype=np.float32)
    assert z4ai.compress(data.tobytes(), dtype="f32", effort="default") == z4ai.compress(data.tobytes(), dtype="f32",
                                                                                       effort="fast")
    for effort in ("default", "fast"):
        with ztensor.Writer(tmp_path / f"{effort}.zt") as w:
            w.add("x", data, compression="z4ai", effort=effort)
    assert (tmp_path / "default.zt").read_bytes() == (tmp_path / "fast.zt").read_bytes()
    ztensor.convert(tmp_path / "fast.zt", tmp_path / "c.zt", compression="z4ai", effort="default")
    with pytest.raises(ztensor.ZTensorError, match="'default' = 'fast'"):
        ztensor.convert(tmp_path / "fast.zt", tmp_path / "d.zt", compression="z4ai", effort="quick")
