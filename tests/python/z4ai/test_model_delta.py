"""z4ai.model_delta: name-aligned Z4DM deltas between safetensors checkpoints."""

import numpy as np
import pytest
from safetensors.numpy import save

import z4ai
from z4ai import model_delta

ST_DTYPE = {np.dtype(np.float16): "fp16", np.dtype(np.float32): "fp32", np.dtype(np.int64): "int64"}


def base_model():
    rng = np.random.default_rng(0)
    tensors = {f"layers.{i}.weight": (rng.standard_normal((256, 256)) * 0.02).astype(np.float16) for i in range(6)}
    tensors["norm.weight"] = np.ones(256, dtype=np.float32)
    tensors["position_ids"] = np.arange(512, dtype=np.int64)
    return tensors


def fine_tune(arr, fraction, seed):
    """Nudges `fraction` of the elements by a few ulps, like a fine-tune step."""
    rng = np.random.default_rng(seed)
    bits = arr.copy().view(np.uint16 if arr.itemsize == 2 else np.uint32).reshape(-1)
    idx = np.flatnonzero(rng.random(bits.size) < fraction)
    bits[idx] ^= rng.integers(1, 8, idx.size).astype(bits.dtype)
    return bits.view(arr.dtype).reshape(arr.shape)


def standalone_size(tensors):
    return sum(len(z4ai.compress(a.tobytes(), dtype=ST_DTYPE[a.dtype])) for a in tensors.values())


def round_trip(target, base):
    blob = model_delta.compress(target, base)
    assert model_delta.peek_is_model_delta(blob)
    assert model_delta.decompress(blob, base) == target
    return blob


def test_two_percent_fine_tune_is_far_smaller_than_standalone():
    base_t = base_model()
    target_t = dict(base_t)
    for i in range(6):
        target_t[f"layers.{i}.weight"] = fine_tune(base_t[f"layers.{i}.weight"], 0.02, i)
    blob = round_trip(save(target_t), save(base_t))
    ratio = standalone_size(target_t) / len(blob)
    print(f"2% fine-tune: standalone {standalone_size(target_t)} B, Z4DM {len(blob)} B, {ratio:.1f}x smaller")
    assert ratio >= 10


def test_re_upload_is_all_copy():
    base = save(base_model())
    blob = round_trip(base, base)
    assert len(blob) < 2000


def test_added_dropped_renamed_reshaped_tensors():
    base_t = base_model()
    target_t = {
        "layers.5.weight": base_t["layers.5.weight"],
        "renamed.weight": base_t["layers.1.weight"],
        "layers.2.weight": fine_tune(base_t["layers.2.weight"], 0.02, 9).reshape(-1),
        "layers.3.weight": fine_tune(base_t["layers.3.weight"], 0.02, 8),
        "new.bias": np.linspace(-1, 1, 64, dtype=np.float32),
    }
    round_trip(save(target_t, metadata={"format": "pt"}), save(base_t))


def test_empty_target_and_empty_base():
    base = save(base_model())
    round_trip(save({}), base)
    round_trip(base, save({}))


def test_never_larger_than_standalone_for_unrelated_checkpoints():
    rng = np.random.default_rng(5)
    base_t = base_model()
    target_t = {k: (rng.standard_normal(v.shape) * 0.02).astype(v.dtype) for k, v in base_t.items()}
    blob = round_trip(save(target_t), save(base_t))
    header_and_index = 4096
    assert len(blob) <= standalone_size(target_t) + header_and_index


def test_wrong_base_raises_digest_mismatch():
    base_t = base_model()
    target_t = dict(base_t, **{"layers.0.weight": fine_tune(base_t["layers.0.weight"], 0.02, 1)})
    base = save(base_t)
    blob = model_delta.compress(save(target_t), base)
    other = bytearray(base)
    other[-3] ^= 1
    with pytest.raises(z4ai.Z4aiError, match="digest_mismatch"):
        model_delta.decompress(blob, bytes(other))


def test_truncated_and_bit_flipped_frames_raise():
    base_t = base_model()
    target_t = dict(base_t, **{"layers.0.weight": fine_tune(base_t["layers.0.weight"], 0.02, 1)})
    base = save(base_t)
    blob = model_delta.compress(save(target_t), base)
    for n in range(0, len(blob), max(1, len(blob) // 40)):
        with pytest.raises(z4ai.Z4aiError):
            model_delta.decompress(blob[:n], base)
    for at in range(0, len(blob), max(1, len(blob) // 40)):
        bad = bytearray(blob)
        bad[at] ^= 0x40
        with pytest.raises(z4ai.Z4aiError):
            model_delta.decompress(bytes(bad), base)


def test_not_safetensors_is_rejected():
    assert not model_delta.peek_is_model_delta(b"Z4XD....")
    assert not model_delta.peek_is_model_delta(object())
    with pytest.raises(z4ai.Z4aiError, match="invalid_argument"):
        model_delta.compress(b"\x01\x02", save(base_model()))


def test_file_helpers_round_trip(tmp_path):
    base_t = base_model()
    target_t = dict(base_t, **{"layers.4.weight": fine_tune(base_t["layers.4.weight"], 0.02, 4)})
    (tmp_path / "base.safetensors").write_bytes(save(base_t))
    (tmp_path / "ft.safetensors").write_bytes(save(target_t))
    stats = model_delta.compress_file(tmp_path / "ft.safetensors", tmp_path / "base.safetensors", tmp_path / "ft.z4dm")
    assert stats["stored"] == (tmp_path / "ft.z4dm").stat().st_size
    assert stats["original"] == len(save(target_t))
    assert stats["ratio"] == pytest.approx(stats["original"] / stats["stored"])
    back = model_delta.decompress_file(tmp_path / "ft.z4dm", tmp_path / "base.safetensors", tmp_path / "out.safetensors")
    assert back["original"] == stats["original"]
    assert (tmp_path / "out.safetensors").read_bytes() == (tmp_path / "ft.safetensors").read_bytes()


def test_exported_from_package():
    assert z4ai.model_delta is model_delta
    assert "model_delta" in z4ai.__all__
