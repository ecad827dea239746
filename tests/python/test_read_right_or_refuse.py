"""Format readers return what the format's own library returns, or refuse
naming the object and the rule: never a silently wrong array.

Each test is one row of the issue's table and fails on the code before it.
"""

import subprocess
import sys

import numpy as np
import pytest

import ztensor
from _cli import ZT, needs_zt


def zt(*args):
    return subprocess.run([ZT, *map(str, args)], capture_output=True, text=True, timeout=120)


# --- torch conj / neg view bits -------------------------------------------------

def view_bit_checkpoint(torch):
    x = torch.tensor([[1 + 2j, 3 - 4j, -5 + 0.5j], [0j, -1j, 7 + 7j]], dtype=torch.complex64)
    f = torch.tensor([1.5, -2.0, 0.0, float("nan")], dtype=torch.float32)
    return {
        "conj": x.conj(),
        "conj128": x.to(torch.complex128).conj(),
        "conj_t": x.conj().t(),  # strided and conj
        "neg": torch._neg_view(f),
        "neg_bf16": torch._neg_view(f.to(torch.bfloat16)),
        "neg_conj": torch._neg_view(x).conj(),
        "neg_i8": torch._neg_view(torch.tensor([0, 1, -128, 127], dtype=torch.int8)),
        "neg_u8": torch._neg_view(torch.tensor([0, 1, 255], dtype=torch.uint8)),
        "plain": f,
    }


def resolved(t):
    return t.resolve_conj().resolve_neg()


def test_torch_conj_and_neg_views_read_as_torch_load(tmp_path):
    torch = pytest.importorskip("torch")
    p = tmp_path / "views.pt"
    torch.save(view_bit_checkpoint(torch), p)
    want = torch.load(p, weights_only=True)
    assert want["conj"].is_conj() and want["neg"].is_neg()  # the file really carries the bits
    with ztensor.open(p) as r:
        for name, t in want.items():
            got = r.read(name, "torch")
            assert got.dtype == t.dtype and got.shape == t.shape, name
            # equal_nan: NaN sign flips are compared bit for bit below
            assert torch.equal(got.view(torch.uint8), resolved(t).contiguous().view(torch.uint8)), name
        np.testing.assert_array_equal(r.read("conj"), resolved(want["conj"]).numpy())


def test_torch_neg_bit_without_a_torch_negation_is_refused_by_name(tmp_path):
    torch = pytest.importorskip("torch")
    p = tmp_path / "bool_neg.pt"
    torch.save({"ok": torch.ones(2), "mask": torch._neg_view(torch.tensor([True, False]))}, p)
    with ztensor.open(p) as r:
        np.testing.assert_array_equal(r.read("ok"), np.ones(2, np.float32))
        with pytest.raises(ztensor.UnsupportedError) as e:
            r.read("mask")
    assert e.value.code == "unsupported"
    assert "'mask'" in str(e.value) and "neg" in str(e.value)


@needs_zt
def test_zt_convert_copies_view_bits_applied(tmp_path):
    torch = pytest.importorskip("torch")
    p = tmp_path / "views.pt"
    torch.save(view_bit_checkpoint(torch), p)
    want = torch.load(p, weights_only=True)
    out = tmp_path / "views.zt"
    done = zt("convert", p, out)
    assert done.returncode == 0, done.stderr
    with ztensor.open(out) as r:
        for name, t in want.items():
            got = r.read(name, "torch")
            assert torch.equal(got.view(torch.uint8), resolved(t).contiguous().view(torch.uint8)), name


# --- ONNX Constant nodes, subgraphs included --------------------------------------

def constant_model(onnx):
    """A model whose weights are all Constant nodes, one in the main graph and
    one in each branch of an If (as exported RNNs keep them)."""
    from onnx import helper, numpy_helper, TensorProto
    r = np.random.default_rng(3)
    w = r.standard_normal((3, 4)).astype(np.float32)
    then_w = np.arange(6, dtype=np.int64).reshape(2, 3)
    else_w = r.standard_normal(5).astype(np.float16)

    def branch(name, out, arr):
        node = helper.make_node("Constant", [], [out], value=numpy_helper.from_array(arr))
        return helper.make_graph([node], name, [], [helper.make_tensor_value_info(out, TensorProto.UNDEFINED, None)])

    nodes = [
        helper.make_node("Constant", [], ["W"], value=numpy_helper.from_array(w, "ignored_inner_name")),
        helper.make_node("Constant", [], ["label"], value=helper.make_tensor("s", TensorProto.STRING, [1], [b"x"])),
        helper.make_node("If", ["cond"], ["y"], then_branch=branch("then", "then_w", then_w),
                         else_branch=branch("else", "else_w", else_w)),
    ]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("cond", TensorProto.BOOL, [])],
                              [helper.make_tensor_value_info("y", TensorProto.UNDEFINED, None)])
    return helper.make_model(graph, producer_name="ztest"), {"W": w, "then_w": then_w, "else_w": else_w}


def test_onnx_constant_nodes_are_objects_named_by_their_output(tmp_path):
    onnx = pytest.importorskip("onnx")
    model, want = constant_model(onnx)
    p = tmp_path / "m.onnx"
    onnx.save(model, str(p))
    with ztensor.open(p) as r:
        assert sorted(r.keys()) == sorted(want)
        for name, arr in want.items():
            got = r.read(name)
            assert got.dtype == arr.dtype and got.shape == arr.shape, name
            np.testing.assert_array_equal(got, arr)
        assert r.attributes["constants_skipped"] == 1  # the STRING Constant


def test_onnx_sibling_subgraphs_may_reuse_a_constant_name(tmp_path):
    """ONNX scopes names per graph: an If's branches may both define 'c'."""
    onnx = pytest.importorskip("onnx")
    from onnx import helper, numpy_helper, TensorProto
    a, b = np.array([1.0, 2.0], np.float32), np.array([3, 4, 5], np.float32)

    def branch(name, arr):
        node = helper.make_node("Constant", [], ["c"], value=numpy_helper.from_array(arr))
        return helper.make_graph([node], name, [], [helper.make_tensor_value_info("c", TensorProto.FLOAT, ["n"])])

    node = helper.make_node("If", ["cond"], ["y"], name="If_0", then_branch=branch("then", a),
                            else_branch=branch("else", b))
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("cond", TensorProto.BOOL, [])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n"])])
    onnx.checker.check_model(helper.make_model(graph))  # a valid model
    p = tmp_path / "if.onnx"
    onnx.save(helper.make_model(graph), str(p))
    with ztensor.open(p) as r:
        # helper.make_node writes attributes sorted: else_branch comes first and keeps the plain name
        assert r.keys() == ["c", "If_0.then_branch/c"]
        np.testing.assert_array_equal(r.read("c"), b)
        np.testing.assert_array_equal(r.read("If_0.then_branch/c"), a)


@needs_zt
def test_zt_convert_of_a_model_with_no_tensor_fails_and_writes_nothing(tmp_path):
    onnx = pytest.importorskip("onnx")
    from onnx import helper, TensorProto
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    p = tmp_path / "empty.onnx"
    onnx.save(helper.make_model(graph), str(p))
    out = tmp_path / "empty.zt"
    done = zt("convert", p, out)
    assert done.returncode == 1, (done.returncode, done.stderr)
    assert "no tensor" in done.stderr
    assert not out.exists()
    with pytest.raises(ztensor.ZTensorError) as e:
        ztensor.convert(p, tmp_path / "empty2.zt")
    assert "no tensor" in str(e.value)
    assert not (tmp_path / "empty2.zt").exists()


# --- detection by content names the format it saw -----------------------------------

def test_renamed_onnx_is_detected_as_onnx(tmp_path):
    onnx = pytest.importorskip("onnx")
    model, want = constant_model(onnx)
    p = tmp_path / "model.bin"  # the PyTorch extension, ONNX content
    onnx.save(model, str(p))
    with ztensor.open(p) as r:
        assert r.format == "onnx"
        np.testing.assert_array_equal(r.read("W"), want["W"])


@pytest.mark.parametrize("name", ["model.jit", "model.pt", "model.zip"])
def test_torchscript_archive_is_refused_by_name(tmp_path, name):
    torch = pytest.importorskip("torch")
    p = tmp_path / name
    torch.jit.save(torch.jit.script(torch.nn.Linear(2, 3)), str(p))
    with pytest.raises(ztensor.UnsupportedError) as e:
        ztensor.open(p)
    assert "TorchScript archive" in str(e.value) and "not supported" in str(e.value)
    assert "npz" not in str(e.value)


@needs_zt
def test_zt_convert_names_torchscript(tmp_path):
    torch = pytest.importorskip("torch")
    p = tmp_path / "model.jit"
    torch.jit.save(torch.jit.script(torch.nn.Linear(2, 3)), str(p))
    done = zt("convert", p, tmp_path / "m.zt")
    assert done.returncode == 1, (done.returncode, done.stderr)
    assert "TorchScript archive" in done.stderr


# --- one unsupported npz member is refused when read, not the whole archive -----------

@pytest.mark.parametrize("bad", [np.array([{"a": 1}, None], dtype=object), np.array(["ab", "cde"]),
                                 np.array([b"x", b"yz"])])
@pytest.mark.parametrize("saver", [np.savez, np.savez_compressed])
def test_npz_bad_member_is_refused_when_read_good_members_read(tmp_path, bad, saver):
    p = tmp_path / "mixed.npz"
    good = np.arange(6, dtype=np.float32).reshape(2, 3)
    saver(p, good=good, bad=bad)
    with ztensor.open(p) as r:
        assert set(r.keys()) == {"good", "bad"}
        np.testing.assert_array_equal(r.read("good"), good)
        assert r.object("bad").shape == bad.shape
        with pytest.raises(ztensor.UnsupportedError) as e:
            r.read("bad")
    assert e.value.code == "unsupported"
    assert "'bad.npy'" in str(e.value) and bad.dtype.str in str(e.value)


# --- a missing optional dependency is named with its extra ----------------------------

def test_sparse_object_without_scipy_names_the_extra(tmp_path):
    sp = pytest.importorskip("scipy.sparse")
    p = tmp_path / "mixed.zt"
    with ztensor.Writer(p) as w:
        w.add("dense", np.arange(4, dtype=np.float32))
        w.add("csr", sp.csr_array(np.eye(3, dtype=np.float32)))
    script = f"""
import sys
sys.modules["scipy"] = None  # as if scipy were not installed
sys.modules["scipy.sparse"] = None
import numpy as np, ztensor, ztensor.numpy
with ztensor.open({str(p)!r}) as r:
    assert (r.read("dense") == np.arange(4, dtype=np.float32)).all()  # dense objects need no scipy
try:
    ztensor.numpy.load_file({str(p)!r})
except ModuleNotFoundError as e:
    print("ERR", e.name, e)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ERR scipy "), done.stdout
    assert "pip install ztensor[scipy]" in done.stdout and "'csr'" in done.stdout


@needs_zt
def test_zt_diff_sees_the_conj_bit(tmp_path):
    torch = pytest.importorskip("torch")
    x = torch.tensor([1 + 2j, 3 - 4j], dtype=torch.complex64)
    torch.save({"c": x.conj()}, tmp_path / "conj.pt")
    torch.save({"c": x}, tmp_path / "plain.pt")
    torch.save({"c": x.conj().resolve_conj()}, tmp_path / "resolved.pt")
    differ = zt("diff", tmp_path / "conj.pt", tmp_path / "plain.pt")
    assert differ.returncode == 1, (differ.returncode, differ.stdout, differ.stderr)
    same = zt("diff", tmp_path / "conj.pt", tmp_path / "resolved.pt")
    assert same.returncode == 0, (same.returncode, same.stdout, same.stderr)
