"""One error model in Python: z4ai errors are ZTensorErrors with
.code, a missing file is also FileNotFoundError (unreadable: PermissionError),
and error text never carries bytes that are not printable UTF-8."""

import errno
import os
import struct

import numpy as np
import pytest

import z4ai
import ztensor


def test_z4ai_error_is_a_ztensor_error_with_code():
    assert issubclass(z4ai.Z4aiError, ztensor.ZTensorError)
    assert issubclass(z4ai.Z4aiError, ValueError)
    frame = z4ai.compress(np.arange(256, dtype=np.float32).tobytes(), dtype="f32")
    bad = frame[: len(frame) // 2]
    with pytest.raises(z4ai.Z4aiError) as e:
        z4ai.decompress(bad)
    assert isinstance(e.value, ztensor.ZTensorError)
    assert e.value.code in ztensor.errors.CODE_TO_CLASS
    assert isinstance(e.value, ztensor.errors.CODE_TO_CLASS[e.value.code])
    assert str(e.value).startswith(e.value.code + ": ")  # the old text, still matched by callers


def test_z4ai_error_raised_by_python_code_parses_its_code():
    e = z4ai.Z4aiError("length_mismatch: ZSTN container is truncated")
    assert e.code == "length_mismatch" and isinstance(e, ztensor.ZTensorError)
    assert z4ai._z4ai.Z4aiError is z4ai.Z4aiError


def test_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError) as e:
        ztensor.open(tmp_path / "missing.zt")
    assert isinstance(e.value, ztensor.ZTensorIOError)
    assert e.value.code == "io_error" and e.value.errno == 2
    assert "missing.zt" in str(e.value)


def test_permission_error_from_status():
    # EACCES from the core (root reads any file, so a chmod 0 test would only skip here).
    e = ztensor.errors.from_status("io_error", "cannot open '/x.zt'", 13)
    assert isinstance(e, PermissionError) and isinstance(e, ztensor.ZTensorIOError) and e.errno == 13
    # The class comes from the errno the core carries, not from the text.
    e = ztensor.errors.from_status("io_error", f"cannot open '/x.zt': {os.strerror(13)}")
    assert type(e) is ztensor.ZTensorIOError and e.errno is None


def test_errno_travels_from_the_io_layer(tmp_path):
    # ENOTDIR: strerror text the old parser did not know, so .errno was None.
    (tmp_path / "f").write_bytes(b"x")
    with pytest.raises(ztensor.ZTensorIOError) as e:
        ztensor.open(tmp_path / "f" / "m.zt")
    assert e.value.errno == errno.ENOTDIR and e.value.strerror == os.strerror(errno.ENOTDIR)
    with pytest.raises(FileNotFoundError) as e:
        ztensor.convert(tmp_path / "missing.safetensors", tmp_path / "o.zt")
    assert e.value.errno == errno.ENOENT


def test_non_utf8_safetensors_header_gives_escaped_ztensor_error(tmp_path):
    # A tensor name with bytes that are not UTF-8: the binding used to raise
    # UnicodeDecodeError quoting them raw.
    header = b'{"w\xff\xfe":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}'
    p = tmp_path / "bad.safetensors"
    p.write_bytes(struct.pack("<Q", len(header)) + header + b"\0" * 4)
    with pytest.raises(ztensor.ZTensorError) as e:
        with ztensor.open(p) as r:
            r.keys()
    text = str(e.value)
    assert "\\xff" in text and "\xff" not in text
    text.encode("utf-8")  # printable UTF-8
