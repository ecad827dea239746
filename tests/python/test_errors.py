"""The error hierarchy and the code -> class table."""

import re
from pathlib import Path

import numpy as np
import pytest

import ztensor
from ztensor import _core, errors


def test_hierarchy():
    for cls in (errors.FormatError, errors.DigestMismatchError, errors.LimitError,
                errors.UnsupportedError, errors.ZTensorIOError, errors.NotFoundError):
        assert issubclass(cls, ztensor.ZTensorError)
    assert issubclass(ztensor.ZTensorError, ValueError)
    assert issubclass(ztensor.ZTensorIOError, OSError)
    assert issubclass(ztensor.NotFoundError, KeyError)


ROOT = Path(__file__).resolve().parents[2]
DEF_ROW = re.compile(r"^ZT_ERROR_CODE\((\w+), (\d+), (\w+), (\w+),", re.M)


def def_rows():
    """(number, name, Python class) of every row of include/ztensor/error_codes.def."""
    text = (ROOT / "include" / "ztensor" / "error_codes.def").read_text()
    return [(int(number), name, cls) for name, number, _, cls in DEF_ROW.findall(text)]


def test_codes_are_appended_never_renumbered():
    """The numbers are ABI (C's ZT_E_*, stored nowhere but promised): the codes of release 1.x keep
    theirs, and every error code has a class."""
    released = ["ok", "io_error", "bad_magic", "manifest_too_large", "malformed_manifest", "missing_field",
                "wrong_type", "unknown_dtype", "unknown_format", "unknown_encoding", "misaligned_offset",
                "offset_out_of_range", "length_mismatch", "shape_overflow", "missing_component",
                "corrupt_stream", "digest_mismatch", "limit_exceeded", "unsupported", "invalid_argument",
                "not_found", "invalid_structure", "internal"]
    assert [(n, name) for n, name, _ in _core.ERROR_CODES[:len(released)]] == list(enumerate(released))
    assert sorted(errors.CODE_TO_CLASS) == sorted(name for n, name, _ in _core.ERROR_CODES if n)
    assert errors.from_status("digest_mismatch", "m").code == "digest_mismatch"
    assert str(errors.from_status("not_found", "no object named 'x'")) == "no object named 'x'"
    assert type(errors.from_status("something_new", "m")) is ztensor.ZTensorError


def test_codes_agree_with_cpp():
    for number, name in enumerate(["ok", "io_error", "bad_magic", "manifest_too_large"]):
        assert _core.error_code_name(number) == name
    for number, name, _ in _core.ERROR_CODES:
        assert _core.error_code_name(number) == name
        assert number == 0 or name in errors.CODE_TO_CLASS
    assert _core.error_code_name(len(_core.ERROR_CODES)) == "unknown_error"


def test_the_binding_lists_error_codes_def():
    """The extension's list is the .def, and every Python table comes from it: both packages'
    classes (z4ai's errors are ztensor's classes too)."""
    from z4ai import _errors as z4ai_errors

    assert def_rows() and [tuple(row) for row in _core.ERROR_CODES] == def_rows()
    for number, name, cls in def_rows()[1:]:
        assert errors.CODE_TO_CLASS[name].__name__ == cls
        assert issubclass(z4ai_errors.error_class(name), errors.CODE_TO_CLASS[name])


def test_a_code_added_to_the_list_gets_its_class_or_fails_the_import():
    new = len(_core.ERROR_CODES)
    assert errors._code_to_class([*_core.ERROR_CODES, (new, "new_code", "LimitError")])["new_code"] is errors.LimitError
    with pytest.raises(ImportError, match="new_code.*NoSuchError"):
        errors._code_to_class([*_core.ERROR_CODES, (new, "new_code", "NoSuchError")])


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
