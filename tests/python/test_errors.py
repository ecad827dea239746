"""The error hierarchy and the code -> class table."""

import numpy as np
import pytest

import ztensor
from ztensor import errors


def test_hierarchy():
    for cls in (errors.FormatError, errors.DigestMismatchError, errors.LimitError,
                errors.UnsupportedError, errors.ZTensorIOError, errors.NotFoundError):
        assert issubclass(cls, ztensor.ZTensorError)
    assert issubclass(ztensor.ZTensorError, ValueError)
    assert issubclass(ztensor.ZTensorIOError, OSError)
    assert issubclass(ztensor.NotFoundError, KeyError)


def test_every_code_has_a_class():
    codes = ["io_error", "bad_magic", "manifest_too_large", "malformed_manifest", "missing_field",
             "wrong_type", "unknown_dtype", "unknown_format", "unknown_encoding", "misaligned_offset",
             "offset_out_of_range", "length_mismatch", "shape_overflow", "missing_component",
             "corrupt_stream", "digest_mismatch", "limit_exceeded", "unsupported", "invalid_argument",
             "not_found", "invalid_structure", "internal"]
    assert sorted(errors.CODE_TO_CLASS) == sorted(codes)
    assert errors.from_status("digest_mismatch", "m").code == "digest_mismatch"
    assert str(errors.from_status("not_found", "no object named 'x'")) == "no object named 'x'"
    assert type(errors.from_status("something_new", "m")) is ztensor.ZTensorError


def test_codes_agree_with_cpp():
    from ztensor import _core

    for number, name in enumerate(["ok", "io_error", "bad_magic", "manifest_too_large"]):
        assert _core.error_code_name(number) == name
    for n in range(1, 23):
        assert _core.error_code_name(n) in errors.CODE_TO_CLASS


def test_io_error(tmp_path):
    with pytest.raises(ztensor.ZTensorIOError) as e:
        ztensor.open(tmp_path / "missing.zt")
    assert isinstance(e.value, OSError) and e.value.code == "io_error"
    assert "missing.zt" in str(e.value)


def test_not_a_zt_file(tmp_path):
    p = tmp_path / "junk.zt"
    p.write_bytes(b"definitely not a zTensor file, just some bytes")
    with pytest.raises(ztensor.FormatError) as e:
        ztensor.open(p)
    assert e.value.code == "bad_magic"


def test_truncated_file(tmp_path):
    p = tmp_path / "t.zt"
    with ztensor.Writer(p) as w:
        w.add("a", np.arange(100, dtype=np.float64))
    p.write_bytes(p.read_bytes()[:-3])
    with pytest.raises(ztensor.FormatError):
        ztensor.open(p)


def test_unsupported_dtype_on_write(tmp_path):
    with ztensor.Writer(tmp_path / "u.zt") as w:
        with pytest.raises(ztensor.UnsupportedError):
            w.add("s", np.array(["a", "b"]))
        with pytest.raises(ztensor.UnsupportedError):
            w.add("o", np.array([object()], dtype=object))
        w.add("ok", np.zeros(1))


def test_bad_arguments(tmp_path):
    with ztensor.Writer(tmp_path / "b.zt") as w:
        with pytest.raises(ztensor.ZTensorError):
            w.add("a", np.zeros(1), compression="lz4")
        with pytest.raises(ztensor.ZTensorError):
            w.add("a", np.zeros(1), checksum="md5")
        w.add("a", np.zeros(1))
        with pytest.raises(ztensor.ZTensorError) as e:
            w.add("a", np.zeros(1))
        assert "'a'" in str(e.value)
        with pytest.raises(ztensor.ZTensorError):
            w.add("c", np.zeros(1), attributes={"x": object()})
