#!/usr/bin/env python3
"""Makes the ONNX test models with the real producer (the `onnx` package)
and records what onnx.numpy_helper.to_array decodes from each initializer, so
the C++ reader is checked value for value against onnx itself.

Usage: generate.py [OUT_DIR]   (default: this folder)

expected.json:
  files.<file>.tensors.<name> = {shape, dtype, type, sha256, zero_copy}
  files.<file>.attributes     = model-level attributes the reader must give
  errors.<file> = {code, contains}   crafted attack files and their error
"""
import hashlib
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ZT = {  # TensorProto.DataType -> (zTensor dtype, logical type)
    TensorProto.FLOAT: ("f32", ""), TensorProto.UINT8: ("u8", ""), TensorProto.INT8: ("i8", ""),
    TensorProto.UINT16: ("u16", ""), TensorProto.INT16: ("i16", ""), TensorProto.INT32: ("i32", ""),
    TensorProto.INT64: ("i64", ""), TensorProto.BOOL: ("bool", ""), TensorProto.FLOAT16: ("f16", ""),
    TensorProto.DOUBLE: ("f64", ""), TensorProto.UINT32: ("u32", ""), TensorProto.UINT64: ("u64", ""),
    TensorProto.COMPLEX64: ("f32", "complex64"), TensorProto.COMPLEX128: ("f64", "complex128"),
    TensorProto.BFLOAT16: ("bf16", ""), TensorProto.FLOAT8E4M3FN: ("u8", "f8_e4m3fn"),
    TensorProto.FLOAT8E4M3FNUZ: ("u8", "f8_e4m3fnuz"), TensorProto.FLOAT8E5M2: ("u8", "f8_e5m2"),
    TensorProto.FLOAT8E5M2FNUZ: ("u8", "f8_e5m2fnuz"),
}


def model_of(inits, name="g", **kw):
    graph = helper.make_graph([], name, [], [], initializer=inits)
    m = helper.make_model(graph, producer_name=kw.get("producer", "zt-tests"),
                          opset_imports=[helper.make_opsetid("", 17)])
    return m


def write(path, model_or_bytes):
    data = model_or_bytes if isinstance(model_or_bytes, bytes) else model_or_bytes.SerializeToString()
    with open(path, "wb") as f:
        f.write(data)


def describe(path):
    """What onnx itself decodes: onnx.load + numpy_helper.to_array per initializer."""
    m = onnx.load(path, load_external_data=True)
    tensors = {}
    for t in m.graph.initializer:
        a = numpy_helper.to_array(t, base_dir=os.path.dirname(path))
        dtype, typ = ZT[t.data_type]
        data = np.ascontiguousarray(a).tobytes()
        zero_copy = t.HasField("raw_data") or t.data_location == TensorProto.EXTERNAL or len(data) == 0
        tensors[t.name] = {"shape": list(t.dims), "dtype": dtype, "type": typ,
                           "sha256": hashlib.sha256(data).hexdigest(), "zero_copy": bool(zero_copy)}
    attrs = {"ir_version": m.ir_version, "producer_name": m.producer_name, "graph_name": m.graph.name,
             "opset_import": {(o.domain or "ai.onnx"): o.version for o in m.opset_import}}
    if m.metadata_props:
        attrs["metadata_props"] = {p.key: p.value for p in m.metadata_props}
    return {"tensors": tensors, "attributes": attrs}


# --- hand-written protobuf for the attacks the onnx package will not write ---
def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def field(num, wire, payload):
    if wire == 2:
        return varint(num << 3 | 2) + varint(len(payload)) + payload
    return varint(num << 3 | wire) + payload


def with_external(name, dims, location, offset=None, length=None):
    t = TensorProto()
    t.name, t.data_type = name, TensorProto.FLOAT
    t.dims.extend(dims)
    t.data_location = TensorProto.EXTERNAL
    for k, v in [("location", location), ("offset", offset), ("length", length)]:
        if v is not None:
            e = t.external_data.add()
            e.key, e.value = k, str(v)
    return t


def generate(out):
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(0)
    files, errors = {}, {}

    # raw_data for every numpy-representable type (numpy_helper.from_array).
    arrays = {
        "f32": rng.standard_normal((3, 4)).astype(np.float32), "f16": rng.standard_normal(5).astype(np.float16),
        "f64": rng.standard_normal((2, 2)), "i8": np.array([-128, -1, 0, 127], np.int8),
        "u8": np.arange(6, dtype=np.uint8).reshape(2, 3), "i16": np.array([-30000, 5], np.int16),
        "u16": np.array([0, 65535], np.uint16), "i32": np.array([-(2**31), 2**31 - 1], np.int32),
        "i64": np.array([-(2**63), 2**63 - 1, 0], np.int64), "u32": np.array([2**32 - 1, 1], np.uint32),
        "u64": np.array([2**64 - 1, 7], np.uint64), "bool": np.array([True, False, True]),
        "c64": (rng.standard_normal(3) + 1j * rng.standard_normal(3)).astype(np.complex64),
        "c128": rng.standard_normal(2) + 1j * rng.standard_normal(2),
        "scalar": np.array(2.5, np.float32), "empty": np.zeros((0, 4), np.float32),
    }
    inits = [numpy_helper.from_array(a, name) for name, a in arrays.items()]
    bf16_bits = np.array([0x3F80, 0xC000, 0x7F80], np.uint16)  # 1, -2, inf
    inits.append(helper.make_tensor("bf16_raw", TensorProto.BFLOAT16, [3], bf16_bits.tobytes(), raw=True))
    inits.append(helper.make_tensor("f8_raw", TensorProto.FLOAT8E4M3FN, [4], bytes([0x38, 0xB8, 0x7E, 0]), raw=True))
    write(f"{out}/dtypes_raw.onnx", model_of(inits))
    files["dtypes_raw.onnx"] = describe(f"{out}/dtypes_raw.onnx")

    # Typed repeated fields (make_tensor without raw): float_data, int32_data
    # (incl. float16/bfloat16/float8 bit patterns), int64_data, uint64_data, double_data.
    vals = [1.0, -2.5, 0.333, 448.0]
    typed = [
        helper.make_tensor("t_float", TensorProto.FLOAT, [2, 2], vals),
        helper.make_tensor("t_double", TensorProto.DOUBLE, [4], vals),
        helper.make_tensor("t_int32", TensorProto.INT32, [3], [-5, 0, 2**31 - 1]),
        helper.make_tensor("t_int16", TensorProto.INT16, [2], [-300, 300]),
        helper.make_tensor("t_int8", TensorProto.INT8, [3], [-128, -1, 127]),
        helper.make_tensor("t_uint8", TensorProto.UINT8, [2], [0, 255]),
        helper.make_tensor("t_uint16", TensorProto.UINT16, [2], [1, 65535]),
        helper.make_tensor("t_bool", TensorProto.BOOL, [3], [True, False, True]),
        helper.make_tensor("t_float16", TensorProto.FLOAT16, [4], np.array(vals, np.float16)),
        helper.make_tensor("t_bfloat16", TensorProto.BFLOAT16, [4], vals),
        helper.make_tensor("t_f8e4m3fn", TensorProto.FLOAT8E4M3FN, [4], vals),
        helper.make_tensor("t_f8e5m2", TensorProto.FLOAT8E5M2, [4], vals),
        helper.make_tensor("t_f8e4m3fnuz", TensorProto.FLOAT8E4M3FNUZ, [4], [1.0, -2.5, 0.333, 240.0]),
        helper.make_tensor("t_f8e5m2fnuz", TensorProto.FLOAT8E5M2FNUZ, [4], vals),
        helper.make_tensor("t_int64", TensorProto.INT64, [2], [-(2**62), 2**40]),
        helper.make_tensor("t_uint32", TensorProto.UINT32, [2], [2**32 - 1, 3]),
        helper.make_tensor("t_uint64", TensorProto.UINT64, [2], [2**64 - 1, 3]),
        helper.make_tensor("t_complex64", TensorProto.COMPLEX64, [2], [1 + 2j, -3.5 + 0j]),
        helper.make_tensor("t_complex128", TensorProto.COMPLEX128, [1], [0.1 - 0.2j]),
        helper.make_tensor("t_scalar", TensorProto.INT64, [], [42]),
        helper.make_tensor("t_empty", TensorProto.FLOAT, [0], []),
    ]
    write(f"{out}/dtypes_typed.onnx", model_of(typed))
    files["dtypes_typed.onnx"] = describe(f"{out}/dtypes_typed.onnx")

    # A small real graph with metadata.
    w = numpy_helper.from_array(rng.standard_normal((4, 3)).astype(np.float32), "fc.weight")
    b = numpy_helper.from_array(rng.standard_normal(3).astype(np.float32), "fc.bias")
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3])
    nodes = [helper.make_node("MatMul", ["x", "fc.weight"], ["h"]), helper.make_node("Add", ["h", "fc.bias"], ["y"])]
    m = helper.make_model(helper.make_graph(nodes, "linear", [x], [y], initializer=[w, b]), producer_name="zt-gen",
                          opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    helper.set_model_props(m, {"author": "zTensor tests", "license": "MIT"})
    onnx.checker.check_model(m)
    onnx.save_model(m, f"{out}/linear.onnx")
    files["linear.onnx"] = describe(f"{out}/linear.onnx")

    # External data in one file beside the model.
    os.makedirs(f"{out}/external", exist_ok=True)
    ext = [numpy_helper.from_array(rng.standard_normal((8, 8)).astype(np.float32), "big.w"),
           numpy_helper.from_array(np.arange(10, dtype=np.int64), "big.idx"),
           numpy_helper.from_array(rng.standard_normal(16).astype(np.float16), "big.h")]
    m = model_of(ext, name="ext")
    onnx.save_model(m, f"{out}/external/model.onnx", save_as_external_data=True, all_tensors_to_one_file=True,
                    location="weights.bin", size_threshold=0)
    files["external/model.onnx"] = describe(f"{out}/external/model.onnx")

    # Deeply nested unknown/skipped messages before the initializer: read
    # without recursion, so the weight is still found.
    nested = b""
    for _ in range(3000):
        nested = field(1, 2, nested)  # NodeProto inside NodeProto inside ...
    init = numpy_helper.from_array(np.array([1.5, 2.5], np.float32), "after_nesting").SerializeToString()
    graph = field(1, 2, nested) + field(2, 2, b"nested") + field(5, 2, init)
    write(f"{out}/deep_nesting.onnx", field(1, 0, varint(8)) + field(2, 2, b"crafted") + field(7, 2, graph) +
          field(8, 2, field(2, 0, varint(17))))
    files["deep_nesting.onnx"] = {"tensors": {"after_nesting": {
        "shape": [2], "dtype": "f32", "type": "", "zero_copy": True,
        "sha256": hashlib.sha256(np.array([1.5, 2.5], np.float32).tobytes()).hexdigest()}},
        "attributes": {"ir_version": 8, "producer_name": "crafted", "graph_name": "nested",
                       "opset_import": {"ai.onnx": 17}}}

    # --- attacks and corrupt files ---
    os.makedirs(f"{out}/attacks", exist_ok=True)
    with open(f"{out}/attacks/data.bin", "wb") as f:
        f.write(b"\0" * 64)

    def attack(name, payload, code, contains):
        write(f"{out}/attacks/{name}", payload)
        errors[f"attacks/{name}"] = {"code": code, "contains": contains}

    attack("traversal_parent.onnx", model_of([with_external("w", [4], "../linear.onnx")]), "invalid_structure", "'..'")
    attack("traversal_nested_parent.onnx", model_of([with_external("w", [4], "sub/../../linear.onnx")]),
           "invalid_structure", "'..'")
    attack("traversal_absolute.onnx", model_of([with_external("w", [4], "/etc/passwd")]), "invalid_structure", "absolute")
    attack("external_past_eof.onnx", model_of([with_external("w", [4], "data.bin", offset=60)]), "offset_out_of_range",
           "runs past")
    attack("external_length_mismatch.onnx", model_of([with_external("w", [4], "data.bin", length=8)]),
           "length_mismatch", "length 8")
    attack("external_missing_file.onnx", model_of([with_external("w", [4], "nope.bin")]), "io_error", "nope.bin")
    attack("external_bad_offset.onnx", model_of([with_external("w", [4], "data.bin", offset="-4")]),
           "malformed_manifest", "offset")
    short = numpy_helper.from_array(np.zeros(4, np.float32), "w")
    short.raw_data = short.raw_data[:10]
    attack("raw_length_mismatch.onnx", model_of([short]), "length_mismatch", "tensor 'w'")
    huge = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[2**40, 2**40])
    attack("shape_overflow.onnx", model_of([huge]), "shape_overflow", "tensor 'w'")
    few = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[5])
    few.float_data.extend([1.0, 2.0, 3.0])
    attack("count_mismatch.onnx", model_of([few]), "length_mismatch", "typed values")
    wrong = TensorProto(name="w", data_type=TensorProto.FLOAT16, dims=[1])
    wrong.float_data.append(1.0)
    attack("wrong_typed_field.onnx", model_of([wrong]), "invalid_structure", "field 5")
    s = TensorProto(name="s", data_type=TensorProto.STRING, dims=[1])
    s.string_data.append(b"hi")
    attack("string_tensor.onnx", model_of([s]), "unsupported", "STRING")
    attack("duplicate_name.onnx", model_of([numpy_helper.from_array(np.zeros(1, np.float32), "w")] * 2),
           "invalid_structure", "appears twice")
    attack("varint_overflow.onnx", field(7, 2, field(5, 2, b"\x08" + b"\xff" * 10 + b"\x01")), "malformed_manifest",
           "varint")
    attack("length_past_eof.onnx", field(7, 2, b"") + varint(7 << 3 | 2) + varint(1 << 40) + b"abc",
           "malformed_manifest", "runs past the end")
    attack("group_wire_type.onnx", field(7, 2, field(5, 2, varint(1 << 3 | 3)) + b""), "unsupported", "group")
    good = onnx.load(f"{out}/linear.onnx").SerializeToString()
    attack("truncated.onnx", good[: len(good) - 7], "malformed_manifest", "runs past the end")
    attack("not_a_model.onnx", b"\x0a\x03abc", "malformed_manifest", "no graph")

    with open(f"{out}/expected.json", "w") as f:
        json.dump({"producer": f"onnx {onnx.__version__}", "files": files, "errors": errors}, f, indent=1,
                  sort_keys=True)


if __name__ == "__main__":
    generate(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
