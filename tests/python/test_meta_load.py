"""ztensor.torch.load_model into a model built on the meta device
(accelerate's init_empty_weights, torch.device("meta")): assign=True fills
it with the file's tensors, and a load that would leave anything on meta is
a coded error, never a silent no-op."""

import os

import pytest

import ztensor

torch = pytest.importorskip("torch")
accelerate = pytest.importorskip("accelerate")
from ztensor.torch import load_model, save_model  # noqa: E402


class TinyLM(torch.nn.Module):
    """Tied embedding/head and a buffer the model recomputes (not saved)."""

    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(50, 16)
        self.layers = torch.nn.ModuleList(torch.nn.Linear(16, 16) for _ in range(2))
        self.head = torch.nn.Linear(16, 50, bias=False)
        self.head.weight = self.embed.weight
        self.register_buffer("scale", torch.full((16,), 0.5), persistent=False)

    def forward(self, ids):
        x = self.embed(ids) * self.scale
        for layer in self.layers:
            x = torch.relu(layer(x))
        return self.head(x)


IDS = torch.tensor([[1, 2, 3, 7]])


@pytest.fixture
def saved(tmp_path):
    torch.manual_seed(0)
    model = TinyLM().eval()
    path = tmp_path / "tiny.zt"
    save_model(model, path)
    return model, path


def _empty():
    with accelerate.init_empty_weights():
        return TinyLM().eval()


@pytest.mark.parametrize("compression", [None, "zstd", "z4ai"])
def test_assign_fills_a_model_built_with_init_empty_weights(saved, tmp_path, compression):
    model, path = saved
    if compression:
        path = tmp_path / f"{compression}.zt"
        save_model(model, path, compression=compression)
    empty = _empty()
    assert empty.embed.weight.device.type == "meta"
    assert load_model(empty, path, assign=True) == ([], [])
    assert all(t.device.type == "cpu" for t in [*empty.parameters(), *empty.buffers()])
    assert empty.head.weight is empty.embed.weight  # still tied
    assert torch.equal(empty(IDS), model(IDS))


def test_assign_puts_the_mapped_tensors_in_without_a_copy(saved):
    _, path = saved
    empty = _empty()
    load_model(empty, path, assign=True)
    storages = {p.untyped_storage().data_ptr() for p in empty.parameters()}
    assert len(storages) == 1
    assert empty.layers[0].weight.untyped_storage().nbytes() == os.path.getsize(path)


def test_meta_model_without_assign_is_an_error(saved):
    _, path = saved
    with pytest.raises(ztensor.ZTensorError, match="assign=True") as e:
        load_model(_empty(), path)
    assert e.value.code == "invalid_argument"


def test_a_load_that_leaves_a_parameter_on_meta_is_an_error(saved, tmp_path):
    model, _ = saved
    state = {k: v for k, v in model.state_dict().items() if k != "layers.1.bias"}
    ztensor.torch.save_file({k: v.clone() for k, v in state.items() if k != "head.weight"}, tmp_path / "part.zt")
    with pytest.raises(ztensor.NotFoundError, match="layers.1.bias") as e:
        load_model(_empty(), tmp_path / "part.zt", strict=False, assign=True)
    assert e.value.code == "not_found"


def test_buffers_on_meta_that_the_file_lacks_are_named(saved):
    """torch.device("meta") also puts buffers there: the recomputed one is not
    in the file, so the load cannot complete the model."""
    _, path = saved
    with torch.device("meta"):
        empty = TinyLM()
    with pytest.raises(ztensor.NotFoundError, match="scale"):
        load_model(empty, path, strict=False, assign=True)


def test_assign_on_a_real_model_keeps_ties_and_values(saved):
    model, path = saved
    fresh = TinyLM().eval()
    load_model(fresh, path, assign=True)
    assert fresh.head.weight is fresh.embed.weight
    assert torch.equal(fresh(IDS), model(IDS))


def test_save_model_after_an_assigning_load(saved, tmp_path):
    """Every raw tensor is a view of one mapping: that is not sharing, and the
    tied pair is still stored once."""
    model, path = saved
    empty = _empty()
    load_model(empty, path, assign=True)
    save_model(empty, tmp_path / "again.zt")
    with ztensor.open(tmp_path / "again.zt") as r:
        assert sorted(r.keys()) == sorted(ztensor.open(path).keys())
    ztensor.torch.save_file(ztensor.torch.load_file(path), tmp_path / "plain.zt")
