"""Remote reads a caller can bound (docs/remote.md "Bounds"): Retry-After,
connect and stall timeouts, attempts and deadlines, set per call (Python's
storage_options, the C API's zt_remote_options) and by environment for the
CLI (ZT_HTTP_*), against real loopback servers: one answering 429 with
Retry-After, one trickling 2 KB/s, one that accepts and never answers, one
whose accept queue is full. The bounds are small (a few seconds); each
check is "ended with the coded error", never a timing, and each subprocess
has a generous timeout so a hang fails instead of stalling the suite.
"""

import os
import subprocess

import numpy as np
import pytest

import ztensor
import ztensor.numpy
from _capi import CApi, find_libztensor
from _cli import ZT, needs_zt
from _servers import FaultServer, SilentServer

SMALL = np.arange(10, dtype=np.int16)
# 64 KiB of tensor bytes: 32 s at 2 KB/s, far past the bounds below.
WIDE = np.arange(16 << 10, dtype=np.float32)
# Bounds of the tests (seconds), and how long a front end may take before the test calls it a hang.
DEADLINE, STALL, CONNECT = 2, 1, 1
HANG_SECONDS = 60

needs_lib = pytest.mark.skipif(find_libztensor() is None, reason="libztensor.so not built (or set ZT_LIB)")


@pytest.fixture
def fault(tmp_path):
    path = tmp_path / "f.zt"
    ztensor.numpy.save_file({"small": SMALL, "wide": WIDE}, str(path))
    server = FaultServer("f.zt", path.read_bytes())
    yield server
    server.stop()


def zt_info(url, **env):
    out = subprocess.run([ZT, "info", url], capture_output=True, text=True, timeout=HANG_SECONDS,
                         env={**os.environ, **{f"ZT_HTTP_{k.upper()}": str(v) for k, v in env.items()}})
    return out.returncode, out.stderr.strip()


def test_retry_after_longer_than_the_deadline_gives_up_at_once(fault):
    fault.fail_first, fault.fail_status, fault.retry_after = 100, 429, 30
    with pytest.raises(ztensor.errors.ZTensorIOError, match="HTTP 429 asks to retry after 30 s, and the "
                                                            "open_deadline of 2 s leaves no time"):
        ztensor.open(fault.url(), storage_options={"open_deadline": DEADLINE})
    assert fault.served == 1  # not five requests in a burst


def test_retry_after_is_waited_for_then_the_read_succeeds(fault):
    fault.fail_first, fault.fail_status, fault.retry_after = 1, 503, 1
    with ztensor.open(fault.url(), storage_options={"open_deadline": 30}) as r:
        np.testing.assert_array_equal(r.read("small"), SMALL)
    assert fault.served >= 2


def test_retry_after_past_what_ztensor_waits_is_refused_by_default(fault):
    fault.fail_first, fault.fail_status, fault.retry_after = 100, 429, 3600
    with pytest.raises(ztensor.errors.ZTensorIOError, match="retry after 3600 s, longer than the 60 s"):
        ztensor.open(fault.url())
    assert fault.served == 1


def trickling(fault):
    """Open while the server is fast, then make it trickle 2 KB/s."""
    r = ztensor.open(fault.url(), storage_options={"read_deadline": DEADLINE})
    fault.trickle = 2048
    return r


def test_trickling_server_hits_the_read_deadline_in_python(fault):
    r = trickling(fault)
    with pytest.raises(ztensor.errors.ZTensorIOError, match="the read_deadline of 2 s passed"):
        r.read("wide")


@needs_zt
def test_trickling_server_hits_the_read_deadline_in_the_cli(fault, tmp_path):
    fault.trickle = 2048
    out = subprocess.run([ZT, "convert", fault.url(), str(tmp_path / "out.zt")], capture_output=True, text=True,
                         timeout=HANG_SECONDS, env={**os.environ, "ZT_HTTP_READ_DEADLINE": str(DEADLINE)})
    assert out.returncode == 1, out.stderr
    assert "io_error" in out.stderr and "read_deadline of 2 s passed" in out.stderr
    assert "ZT_HTTP_READ_DEADLINE" in out.stderr  # the message says how to change it
    assert not (tmp_path / "out.zt").exists()


@needs_lib
def test_trickling_server_hits_the_read_deadline_in_c(fault):
    fault.trickle = 2048
    code, message, _ = CApi().open_url(fault.url(), {"read_deadline": DEADLINE}, read="wide")
    assert code == "io_error" and "read_deadline of 2 s passed" in message, message


@pytest.fixture
def silent():
    server = SilentServer(accept=True)
    yield server
    server.stop()


def test_server_that_never_answers_hits_the_stall_bound(silent):
    with pytest.raises(ztensor.errors.ZTensorIOError,
                       match=r"no data for the stall_timeout of 1 s \(gave up after 2 attempts\)"):
        ztensor.open(silent.url(), storage_options={"stall_timeout": STALL, "max_attempts": 2})
    assert silent.accepted.is_set()


@needs_zt
def test_server_that_never_answers_hits_the_deadline_in_the_cli(silent):
    rc, err = zt_info(silent.url(), open_deadline=DEADLINE)
    assert rc == 1 and "io_error" in err and "open_deadline of 2 s passed" in err, err


@needs_lib
def test_server_that_never_answers_in_c(silent):
    code, message, _ = CApi().open_url(silent.url(), {"stall_timeout": STALL, "max_attempts": 1})
    assert code == "io_error" and "stall_timeout of 1 s" in message, message


def test_host_that_never_accepts_hits_the_connect_bound():
    server = SilentServer(accept=False)
    try:
        with pytest.raises(ztensor.errors.ZTensorIOError,
                           match=r"no connection within the connect_timeout of 1 s \(gave up after 1 attempt\)"):
            ztensor.open(server.url(), storage_options={"connect_timeout": CONNECT, "max_attempts": 1})
    finally:
        server.stop()


def test_attempts_are_settable(fault):
    fault.fail_first = 100
    with pytest.raises(ztensor.errors.ZTensorIOError, match=r"HTTP 503 \(gave up after 2 attempts\)"):
        ztensor.open(fault.url(), storage_options={"max_attempts": 2})
    assert fault.served == 2


@needs_zt
def test_attempts_from_the_environment_in_the_cli(fault):
    fault.fail_first = 100
    rc, err = zt_info(fault.url(), max_attempts=3)
    assert rc == 1 and "gave up after 3 attempts" in err, err
    assert fault.served == 3


def test_bad_option_values_are_refused_by_name(fault):
    for options, words in (({"connect_timeout": 0}, "connect_timeout"), ({"max_attempts": "many"}, "max_attempts"),
                           ({"redirects": "sometimes"}, "redirects"), ({"use_ssl": False}, "use_ssl")):
        with pytest.raises(ztensor.ZTensorError, match=words) as e:
            ztensor.open(fault.url(), storage_options=options)
        assert e.value.code == "invalid_argument"


@needs_zt
def test_a_bad_environment_value_is_a_usage_error_naming_the_variable(fault):
    rc, err = zt_info(fault.url(), stall_timeout="soon")
    assert rc == 1 and "invalid_argument" in err and "ZT_HTTP_STALL_TIMEOUT" in err, err


def test_s3fs_spellings_map_to_the_same_bounds(fault):
    fault.fail_first = 100
    options = {"config_kwargs": {"connect_timeout": 5, "read_timeout": 5, "retries": {"max_attempts": 2}}}
    with pytest.raises(ztensor.errors.ZTensorIOError, match="gave up after 2 attempts"):
        ztensor.open(fault.url(), storage_options=options)


def test_storage_options_are_for_urls(tmp_path):
    path = tmp_path / "local.zt"
    ztensor.numpy.save_file({"small": SMALL}, str(path))
    with ztensor.open(str(path), storage_options={}) as r:  # none given: a local file opens as ever
        np.testing.assert_array_equal(r.read("small"), SMALL)
    with pytest.raises(ztensor.ZTensorError, match="storage_options apply to URLs") as e:
        ztensor.open(str(path), storage_options={"read_deadline": 1})
    assert e.value.code == "invalid_argument"
