"""Reader.get_slice: safetensors-style lazy indexing.

Values must equal numpy indexing of the whole array for every index form;
a row range of a raw object must be a view of the file (numpy), a view of a
private mapping of the opened file (torch, local .zt) or hold only those rows
(torch, other sources); index errors are numpy's.
"""

import json
import os
import tracemalloc

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ztensor
import ztensor.numpy as ztnp
from _util import same, sample

SHAPES = {"scalar": (), "vec": (7,), "mat": (5, 6), "cube": (3, 4, 5), "empty": (0, 3)}


@pytest.fixture(scope="module")
def arrays():
    return {name: sample(np.float32, shape, seed=i) for i, (name, shape) in enumerate(SHAPES.items())}


@pytest.fixture(scope="module", params=["raw", "zstd"])
def reader(request, arrays, tmp_path_factory):
    path = tmp_path_factory.mktemp("slice") / f"{request.param}.zt"
    with ztensor.Writer(path) as w:
        for name, a in arrays.items():
            w.add(name, a, compression=None if request.param == "raw" else "zstd")
    with ztensor.open(path) as r:
        yield r


@st.composite
def name_and_index(draw):
    name = draw(st.sampled_from(sorted(SHAPES)))
    index = draw(hnp.basic_indices(SHAPES[name], min_dims=0, allow_ellipsis=True, allow_newaxis=True))
    return name, index


@settings(max_examples=300, deadline=None)
@given(name_and_index())
def test_numpy_values_equal_numpy_indexing(reader, arrays, case):
    name, index = case
    got = reader.get_slice(name)[index]
    want = arrays[name][index]
    assert type(got) is type(want)
    np.testing.assert_array_equal(got, want)
    assert np.shape(got) == np.shape(want)


@settings(max_examples=150, deadline=None)
@given(name_and_index())
def test_torch_values_equal_numpy_indexing(reader, arrays, case):
    import torch
    name, index = case
    got = reader.get_slice(name, framework="torch")[index]
    want = np.asarray(arrays[name][index])
    assert isinstance(got, torch.Tensor) and got.dtype == torch.float32
    assert tuple(got.shape) == want.shape
    np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("index", [
    ([0, 2, 4],), (np.array([True, False, True, False, True]),), (slice(None), [5, 0]),
    (slice(None, None, -2), -1), (-5, slice(-3, None)),
])
def test_advanced_indices(reader, arrays, index):
    np.testing.assert_array_equal(reader.get_slice("mat")[index], arrays["mat"][index])


@pytest.mark.parametrize("index", [
    ([0, 2, 4],), (np.array([True, False, True, False, True]),), (slice(None), [5, 0]), (np.array(1), 2),
])
def test_advanced_indices_torch(reader, arrays, index):
    import torch
    got = reader.get_slice("mat", "torch")[index]
    want = np.asarray(arrays["mat"][index])
    assert isinstance(got, torch.Tensor) and got.is_contiguous() and tuple(got.shape) == want.shape
    np.testing.assert_array_equal(got.numpy(), want)


# Basic indices numpy refuses: the same exception, with the same message.
REFUSED = [
    5, -6, (0, 6), (slice(None), -7), (0, 0, 0), (Ellipsis, Ellipsis), [9], 10**30, (0, -(10**30)),
    np.int64(5), (slice(0, 2, 0),), (slice(None), slice(None, None, 0)), slice(1.5, 3), (0, "a"), 2.0,
    (None,) * 63,
]


@pytest.mark.parametrize("index", REFUSED)
def test_index_errors_are_numpys(reader, arrays, index):
    with pytest.raises((IndexError, ValueError, TypeError)) as want:
        arrays["mat"][index]
    for framework in ("numpy", "torch"):
        with pytest.raises(want.type) as got:
            reader.get_slice("mat", framework)[index]
        assert str(got.value) == str(want.value)


def test_refused_index_reads_no_data(tmp_path):
    # Corrupt bytes that any read would report (verify=True checks the
    # digest): a refused index must fail on the index alone.
    a = sample(np.float32, (64, 16))
    with ztensor.Writer(tmp_path / "v.zt") as w:
        w.add("t", a, checksum="sha256")
    data = bytearray((tmp_path / "v.zt").read_bytes())
    data[data.find(a[0].tobytes())] ^= 0xFF
    (tmp_path / "v.zt").write_bytes(bytes(data))
    with ztensor.open(tmp_path / "v.zt", verify=True) as r:
        for framework in ("numpy", "torch"):
            s = r.get_slice("t", framework)
            for index in [64, (0, 0, 0), (slice(None, None, 0),), (Ellipsis, Ellipsis)]:
                with pytest.raises((IndexError, ValueError)) as got:
                    s[index]
                assert not isinstance(got.value, ztensor.ZTensorError), index  # not the digest's error
            with pytest.raises(ztensor.DigestMismatchError):
                s[0:1]


# --- every element type, every basic index ---------------------------------

TYPED_DTYPES = [np.float64, np.float32, np.float16, ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn,
                ml_dtypes.float8_e5m2, np.int64, np.int16, np.uint8, np.uint64, np.bool_, np.complex64,
                np.complex128]
TYPED_SHAPES = [(), (7,), (0, 3), (4, 5), (3, 1, 4), (2, 3, 2, 3)]


@pytest.fixture(scope="module", params=["raw", "zstd"])
def typed(request, tmp_path_factory):
    arrays = {f"{np.dtype(dt).name}-{i}": sample(dt, shape, seed=i)
              for dt in TYPED_DTYPES for i, shape in enumerate(TYPED_SHAPES)}
    path = tmp_path_factory.mktemp("typed") / f"{request.param}.zt"
    with ztensor.Writer(path) as w:
        for name, a in arrays.items():
            w.add(name, a, compression=None if request.param == "raw" else "zstd")
    with ztensor.open(path) as r:
        yield r, arrays, request.param == "raw"


def reverses(view) -> bool:
    """Whether numpy's view runs backwards along an axis of more than one
    element (torch has no such view)."""
    return any(stride < 0 and n > 1 for stride, n in zip(np.asarray(view).strides, np.shape(view)))


@st.composite
def typed_index(draw):
    dt = draw(st.sampled_from(TYPED_DTYPES))
    i = draw(st.integers(0, len(TYPED_SHAPES) - 1))
    index = draw(hnp.basic_indices(TYPED_SHAPES[i], min_dims=0, allow_ellipsis=True, allow_newaxis=True))
    return f"{np.dtype(dt).name}-{i}", index


@settings(max_examples=400, deadline=None)
@given(typed_index())
def test_every_dtype_and_basic_index_numpy(typed, case):
    r, arrays, raw = typed
    name, index = case
    got, want = r.get_slice(name)[index], arrays[name][index]
    assert type(got) is type(want)
    assert same(got, want)
    if raw and isinstance(got, np.ndarray) and got.size:  # a view of the mapped file, as read() is
        assert np.shares_memory(got, r.read(name)) and not got.flags.writeable


@settings(max_examples=300, deadline=None)
@given(typed_index())
def test_every_dtype_and_basic_index_torch(typed, case):
    import torch
    r, arrays, raw = typed
    name, index = case
    got, want = r.get_slice(name, "torch")[index], np.array(arrays[name][index], order="C")  # keeps 0-d
    assert isinstance(got, torch.Tensor) and got.dtype == r.read(name, "torch").dtype
    assert tuple(got.shape) == want.shape
    if raw and want.size and not reverses(arrays[name][index]):
        # a view of the reader's private mapping of the file, as safetensors' slices are
        assert got.untyped_storage().nbytes() == os.path.getsize(r.path)
    else:  # only the selection, in memory of its own
        assert got.is_contiguous() and got.untyped_storage().nbytes() == want.nbytes
    # as bytes: torch has no fp8 comparison kernels
    assert bytes(got.contiguous().reshape(-1).view(torch.uint8).numpy()) == want.tobytes()


def test_shape_dtype_and_len(reader):
    s = reader.get_slice("cube")
    assert s.get_shape() == [3, 4, 5] and s.get_dtype() == "F32" and len(s) == 3
    assert reader.get_slice("scalar").get_shape() == []
    with pytest.raises(TypeError):
        len(reader.get_slice("scalar"))


DTYPE_NAMES = [
    (np.float64, "F64"), (np.float16, "F16"), (ml_dtypes.bfloat16, "BF16"), (np.int64, "I64"),
    (np.int8, "I8"), (np.uint16, "U16"), (np.uint8, "U8"), (np.bool_, "BOOL"),
    (ml_dtypes.float8_e4m3fn, "F8_E4M3"), (ml_dtypes.float8_e5m2, "F8_E5M2"), (np.complex64, "C64"),
    (ml_dtypes.float8_e4m3fnuz, "F8_E4M3FNUZ"), (np.complex128, "COMPLEX128"),
]


@pytest.mark.parametrize("dtype,st_name", DTYPE_NAMES)
def test_every_dtype(tmp_path, dtype, st_name):
    a = sample(dtype, (6, 4))
    ztnp.save_file({"t": a}, tmp_path / "t.zt")
    with ztensor.open(tmp_path / "t.zt") as r:
        s = r.get_slice("t")
        assert s.get_dtype() == st_name
        got = s[1:4, ::-1]
        assert got.dtype == a.dtype
        np.testing.assert_array_equal(got, a[1:4, ::-1])


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn, np.complex64, np.bool_])
def test_every_dtype_torch(tmp_path, dtype):
    import torch
    a = sample(dtype, (6, 4))
    ztnp.save_file({"t": a}, tmp_path / "t.zt")
    with ztensor.open(tmp_path / "t.zt") as r:
        want = r.read("t", "torch")[1:4, 2]
        got = r.get_slice("t", "torch")[1:4, 2]
        assert got.dtype == want.dtype and got.shape == want.shape
        # as bytes: torch.equal has no fp8 kernels
        assert torch.equal(got.contiguous().view(torch.uint8), want.contiguous().view(torch.uint8))


# --- every source ztensor.open reads ----------------------------------------

ROWS, COLS = 2048, 256  # 2 MiB of f32


def write_source(kind, path, a):
    if kind == "zt":
        ztnp.save_file({"emb": a}, path / "m.zt")
        return path / "m.zt"
    if kind == "zt_index":
        small = np.zeros(COLS, np.float32)
        ztnp.save_file({"emb": a, "bias": small}, path / "m.zt", max_shard_size=a.nbytes + 512)
        return path / "m.zt.index.json"
    if kind == "safetensors":
        from safetensors.numpy import save_file
        save_file({"emb": a}, str(path / "m.safetensors"))
        return path / "m.safetensors"
    if kind == "safetensors_index":
        from safetensors.numpy import save_file
        save_file({"emb": a}, str(path / "m-00001-of-00002.safetensors"))
        save_file({"bias": a[:1]}, str(path / "m-00002-of-00002.safetensors"))
        weight_map = {"emb": "m-00001-of-00002.safetensors", "bias": "m-00002-of-00002.safetensors"}
        (path / "m.safetensors.index.json").write_text(json.dumps({"metadata": {}, "weight_map": weight_map}))
        return path / "m.safetensors.index.json"
    if kind == "npy":
        np.save(path / "m.npy", a)
        return path / "m.npy"
    if kind == "npz":
        np.savez(path / "m.npz", emb=a)
        return path / "m.npz"
    if kind == "pytorch":
        import torch
        torch.save({"emb": torch.from_numpy(a)}, path / "m.pt")
        return path / "m.pt"
    if kind == "gguf":
        import gguf
        w = gguf.GGUFWriter(str(path / "m.gguf"), "llama")
        w.add_tensor("emb", a)
        w.write_header_to_file()
        w.write_kv_data_to_file()
        w.write_tensors_to_file()
        w.close()
        return path / "m.gguf"
    if kind == "onnx":
        import onnx
        from onnx import helper, numpy_helper
        graph = helper.make_graph([], "g", [], [], initializer=[numpy_helper.from_array(a, "emb")])
        onnx.save(helper.make_model(graph), path / "m.onnx")
        return path / "m.onnx"
    raise AssertionError(kind)


SOURCES = {"zt": "zt", "zt_index": "zt_index", "safetensors": "safetensors", "safetensors_index": "safetensors",
           "npy": "npy", "npz": "npz", "pytorch": "pytorch", "gguf": "gguf", "onnx": "onnx"}


@pytest.fixture(params=sorted(SOURCES))
def source(request, tmp_path):
    a = sample(np.float32, (ROWS, COLS))
    path = write_source(request.param, tmp_path, a)
    with ztensor.open(path) as r:
        assert r.format == SOURCES[request.param]
        name = "emb" if "emb" in r else r.keys()[0]  # .npy names its one array itself
        yield r, name, a


def test_row_slice_is_a_view_of_the_file(source):
    r, name, a = source
    rows = r.get_slice(name)[1000:1010]
    np.testing.assert_array_equal(rows, a[1000:1010])
    assert np.shares_memory(rows, r.read(name))  # the mapping, not a copy
    assert not rows.flags.writeable


def test_row_slice_allocates_only_the_rows(source):
    r, name, a = source
    s_np, s_pt = r.get_slice(name), r.get_slice(name, framework="torch")
    s_np[0:1], s_pt[0:1]  # warm up lazy imports
    tracemalloc.start()
    try:
        rows = s_np[1000:1010]
        t = s_pt[1000:1010]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < a.nbytes // 20, peak  # 10 rows are 10 KiB of a 2 MiB tensor
    np.testing.assert_array_equal(t.numpy(), rows)


def test_torch_row_slice_is_a_private_view_or_holds_only_the_rows(source):
    r, name, a = source
    t = r.get_slice(name, "torch")[1000:1010]
    if r.format == "zt" and r.path.endswith(".zt"):  # a view of the file's copy-on-write mapping
        assert t.untyped_storage().nbytes() == os.path.getsize(r.path)
    else:
        assert t.untyped_storage().nbytes() == 10 * COLS * 4  # Reader.read(...)[a:b] held all ROWS
    assert t.is_contiguous()
    t[0, 0] = 1.0  # writable, and the file is untouched
    assert r.read(name)[1000, 0] == a[1000, 0]


def test_torch_column_block_of_a_local_zt_is_a_view(tmp_path):
    import torch
    a = sample(np.float32, (ROWS, COLS))
    ztnp.save_file({"emb": a}, tmp_path / "m.zt")
    with ztensor.open(tmp_path / "m.zt") as r:
        s = r.get_slice("emb", "torch")
        block = s[:, 8:16]
        assert block.untyped_storage().nbytes() == os.path.getsize(r.path)  # no copy
        assert not block.is_contiguous()
        np.testing.assert_array_equal(block.numpy(), a[:, 8:16])
        block.mul_(2)  # writable; the write stays in this process
        np.testing.assert_array_equal(r.read("emb")[:, 8:16], a[:, 8:16])
        # one mapping per reader, as safetensors has one per safe_open
        assert torch.equal(r.get_slice("emb", "torch")[:, 8:9], block[:, :1])
        reversed_rows = s[::-1, 8:16]  # torch has no negative strides: a copy
        assert reversed_rows.is_contiguous() and reversed_rows.untyped_storage().nbytes() == ROWS * 8 * 4
    assert ztnp.load_file(tmp_path / "m.zt")["emb"].tobytes() == a.tobytes()


def test_torch_reads_keep_the_opened_file_when_its_path_is_replaced(tmp_path):
    """Our writers publish by rename: a reader opened before must go on
    reading the file it validated, never the new one under its manifest."""
    from ztensor._reader import load_all_torch
    old, new = sample(np.float32, (64, 8), seed=1), sample(np.float32, (64, 8), seed=2)
    ztnp.save_file({"emb": old}, tmp_path / "m.zt")
    with ztensor.open(tmp_path / "m.zt") as r:
        ztnp.save_file({"emb": new}, tmp_path / "m.zt")  # a rename over the opened path
        np.testing.assert_array_equal(r.get_slice("emb", "torch")[:, 2:4].numpy(), old[:, 2:4])
        np.testing.assert_array_equal(load_all_torch(r)["emb"].numpy(), old)


def test_compressed_object_is_decoded_then_sliced(tmp_path):
    a = sample(np.float32, (64, 32))
    with ztensor.Writer(tmp_path / "c.zt") as w:
        w.add("z", a, compression="z4ai")
    with ztensor.open(tmp_path / "c.zt") as r:
        np.testing.assert_array_equal(r.get_slice("z")[10:20, 3:], a[10:20, 3:])


# --- errors ------------------------------------------------------------------

def test_non_dense_object_is_refused(tmp_path):
    with ztensor.Writer(tmp_path / "s.zt") as w:
        w.add_sparse_coo("sp", np.ones(2, np.float32), np.array([[0, 1], [1, 0]]), (2, 2))
    with ztensor.open(tmp_path / "s.zt") as r:
        with pytest.raises(ztensor.UnsupportedError, match="'sp'.*sparse_coo.*dense"):
            r.get_slice("sp")


def test_missing_object_and_bad_framework(reader):
    with pytest.raises(ztensor.NotFoundError, match="nope"):
        reader.get_slice("nope")
    with pytest.raises(ztensor.ZTensorError, match="framework"):
        reader.get_slice("mat", framework="tf")


def test_closed_reader(tmp_path):
    ztnp.save_file({"t": np.ones((4, 4), np.float32)}, tmp_path / "t.zt")
    r = ztensor.open(tmp_path / "t.zt")
    s = r.get_slice("t")
    view = s[1:3]
    r.close()
    with pytest.raises(ztensor.ZTensorError, match="closed"):
        s[0]
    with pytest.raises(ztensor.ZTensorError, match="closed"):
        r.get_slice("t")
    assert view.sum() == 8  # handed-out views keep the mapping alive


def test_verify_on_read_checks_the_whole_component(tmp_path):
    a = sample(np.float32, (64, 16))
    with ztensor.Writer(tmp_path / "v.zt") as w:
        w.add("t", a, checksum="sha256")
    data = bytearray((tmp_path / "v.zt").read_bytes())
    at = data.find(a[0].tobytes())
    data[at] ^= 0xFF  # row 0 corrupt; the slice asks for rows 40:42
    (tmp_path / "v.zt").write_bytes(bytes(data))
    with ztensor.open(tmp_path / "v.zt") as r:
        np.testing.assert_array_equal(r.get_slice("t")[40:42], a[40:42])
    with ztensor.open(tmp_path / "v.zt", verify=True) as r:
        with pytest.raises(ztensor.DigestMismatchError):
            r.get_slice("t")[40:42]
