"""z4ai.safetensors: ZSTN v3 containers, byte for byte per the reference layout."""

import json
import struct

import numpy as np
import pytest

import z4ai
from z4ai import safetensors as zs


def build_safetensors(tensors, metadata=None, gap=0):
    """tensors: name -> (st dtype, ndarray); returns a safetensors buffer."""
    header, blobs, pos = {}, [], 0
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, (dt, arr) in tensors.items():
        raw = arr.tobytes()
        header[name] = {"dtype": dt, "shape": list(arr.shape), "data_offsets": [pos, pos + len(raw)]}
        blobs.append(raw + b"\0" * gap)
        pos += len(raw) + gap
    hj = json.dumps(header).encode()
    hj += b" " * (-len(hj) % 8)
    return struct.pack("<Q", len(hj)) + hj + b"".join(blobs)


def model():
    rng = np.random.default_rng(0)
    emb = (rng.standard_normal((300, 64)) * 0.02).astype(np.float32)
    return {
        "embed.weight": ("F32", emb),
        "layer.0.bias": ("F16", (rng.standard_normal(64) * 0.1).astype(np.float16)),
        "layer.0.weight": ("BF16", (rng.standard_normal((64, 64)) * 0.02).astype(np.float32).view(np.uint16)[1::2].reshape(64, 64)),
        "ids": ("I64", np.arange(77, dtype=np.int64)),
        "lm_head.weight": ("F32", emb.copy()),  # tied to embed.weight
        "empty": ("F32", np.zeros((0,), dtype=np.float32)),
    }


def test_round_trip_is_byte_identical_and_smaller():
    st = build_safetensors(model(), metadata={"format": "pt"})
    z = zs.compress_bytes(st)
    assert z[:4] == b"ZSTN" and z[4] == 3 and z[5] == 1 and z[-4:] == b"ZSTN"
    assert zs.decompress_bytes(z) == st
    assert zs.decompress_bytes(z, workers=1) == st
    assert len(z) < len(st)


def test_layout_header_verbatim_and_footer():
    st = build_safetensors(model())
    (hlen,) = struct.unpack_from("<Q", st, 0)
    z = zs.compress_bytes(st)
    assert struct.unpack_from("<Q", z, 6)[0] == hlen
    assert z[14 : 14 + hlen] == st[8 : 8 + hlen]
    assert struct.unpack_from("<Q", z, 14 + hlen)[0] == len(st) - 8 - hlen
    index_offset, index_len, magic = struct.unpack_from("<QQ4s", z, len(z) - 20)
    assert magic == b"ZSTN" and index_offset + index_len == len(z) - 20
    (n,) = struct.unpack_from("<I", z, index_offset)
    assert n == len(model())


def test_tied_weights_are_stored_once_as_ref():
    st = build_safetensors(model())
    z = zs.compress_bytes(st)
    r = zs.ZstnReader.from_bytes(z)
    assert r.read_raw("lm_head.weight") == r.read_raw("embed.weight")
    rows = {row[0].decode(): row for row in r._rows}
    assert rows["lm_head.weight"][3] == 1  # REF
    assert r.frame_size("lm_head.weight") == r.frame_size("embed.weight")


def test_reader_random_access(tmp_path):
    tensors = model()
    st = build_safetensors(tensors, metadata={"format": "pt", "k": "v"})
    path = tmp_path / "m.zstn"
    src = tmp_path / "m.safetensors"
    src.write_bytes(st)
    stats = zs.compress_file(str(src), str(path))
    assert stats["original_bytes"] == len(st) and stats["compressed_bytes"] == path.stat().st_size
    with zs.ZstnReader.open(str(path)) as r:
        assert r.names() == list(tensors)  # data-buffer order
        assert r.metadata() == {"format": "pt", "k": "v"}
        assert r.header()["ids"]["dtype"] == "I64"
        assert np.array_equal(r.read_numpy("embed.weight"), tensors["embed.weight"][1])
        assert np.array_equal(r.read_numpy("ids"), tensors["ids"][1])
        assert r.read_raw("layer.0.weight") == tensors["layer.0.weight"][1].tobytes()
        with pytest.raises(TypeError):
            r.read_numpy("layer.0.weight")  # bf16
        with pytest.raises(KeyError):
            r.read_raw("nope")
    out = tmp_path / "back.safetensors"
    assert zs.decompress_file(str(path), str(out))["bytes"] == len(st)
    assert out.read_bytes() == st


def test_tensors_that_do_not_tile_are_refused_like_ztensor_open_refuses_them():
    st = build_safetensors(model(), gap=8)
    with pytest.raises(z4ai.Z4aiError) as e:
        zs.compress_bytes(st)
    assert e.value.code == "invalid_argument" and "invalid_structure" in str(e.value)


def test_reader_takes_its_layout_from_the_library_and_reads_opaque_containers():
    """ZstnReader lists tensors as the library's safetensors parser reads the stored header, for a
    container of per-tensor frames and for the contiguous=0 containers earlier writers made."""
    from pathlib import Path

    r = zs.ZstnReader.from_bytes(zs.compress_bytes(build_safetensors(model())))
    assert r.tensors()[0] == ("embed.weight", "F32", [300, 64], 0, 300 * 64 * 4)
    assert [t[0] for t in r.tensors()] == r.names()
    golden = Path(__file__).resolve().parents[2] / "golden/codec/zstn_opaque.zstn"
    z = golden.read_bytes()
    st = zs.decompress_bytes(z)
    with zs.ZstnReader.from_bytes(z) as r:
        names = r.names()
        assert len(names) == 2
        data_at = 8 + struct.unpack_from("<Q", st)[0]
        for name, _, _, begin, end in r.tensors():
            assert r.read_raw(name) == st[data_at + begin:data_at + end]


def test_corrupt_containers_raise():
    z = bytearray(zs.compress_bytes(build_safetensors(model())))
    for cut in (0, 3, 10, 30, len(z) // 2, len(z) - 1):
        with pytest.raises(ValueError):
            zs.decompress_bytes(bytes(z[:cut]))
    bad = bytearray(z)
    bad[4] = 2
    with pytest.raises(ValueError):
        zs.decompress_bytes(bytes(bad))
    for i in range(len(z) - 40, len(z) - 4, 3):  # index region
        bad = bytearray(z)
        bad[i] ^= 0x41
        try:
            assert zs.decompress_bytes(bytes(bad)) == zs.decompress_bytes(bytes(z))
        except ValueError:
            pass
    with pytest.raises(ValueError):
        zs.compress_bytes(b"\x05\0\0\0\0\0\0\0{bad}")
