"""The Python half of ``zt convert/compress --scheduler ADDRESS``.

zt (cli/dask_handoff.cc) has parsed and checked the command line; it runs
``main(request, channel_fd)`` in a child interpreter, ``request`` being a
JSON object in :func:`ztensor.convert`'s terms plus the scheduler address.
Replies go to ``channel_fd``, one JSON object a line:
``{"progress": [done, total]}`` after each object, then ``{"result": {...}}``
or ``{"error": {"code", "message"}}``; zt prints the summary and the exit
code as a local run would.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from typing import Callable

from . import _core
from ._convert import convert
from .errors import ZTensorError

# How long the scheduler has to answer before zt gives up on it.
SCHEDULER_CONNECT_TIMEOUT = "30s"
INSTALL_HINT = "pip install 'ztensor[dask]'"
# Test-only, as in zt itself (include/ztensor/test_pause.h): with
# ZT_TEST_PAUSE_AT=progress and ZT_TEST_PAUSE_FIFO naming a FIFO, the first
# progress report after some work tells the test "<pid> progress" and blocks
# until the test has opened and closed the FIFO, so the tests signal zt while
# the workers are known to be busy (tests/python/_pause.py is the other side).
TEST_PAUSE_AT_ENV, TEST_PAUSE_FIFO_ENV = "ZT_TEST_PAUSE_AT", "ZT_TEST_PAUSE_FIFO"
PROGRESS_PAUSE_POINT = "progress"
# How often the paused main thread returns to Python to run signal handlers.
SIGNAL_CHECK_SECONDS = 0.05


def _pause_for_test() -> None:
    """Pauses at the library's point "progress" (ztensor/test_pause.h). The
    pause blocks in a helper thread while this, the main thread, waits in
    short slices: Python runs signal handlers only here, between bytecodes,
    so the SIGINT zt forwards raises KeyboardInterrupt whichever thread the
    kernel handed it to (a blocked main thread would never see it)."""
    released = threading.Event()

    def pause() -> None:
        try:
            _core.test_pause(PROGRESS_PAUSE_POINT)
        finally:
            released.set()

    threading.Thread(target=pause, name="zt-test-pause", daemon=True).start()
    while not released.wait(SIGNAL_CHECK_SECONDS):
        pass


def _pausing_once(report: Callable[[int, int], None]) -> Callable[[int, int], None]:
    if os.environ.get(TEST_PAUSE_AT_ENV) != PROGRESS_PAUSE_POINT or not os.environ.get(TEST_PAUSE_FIFO_ENV):
        return report
    paused = False

    def report_then_pause(done: int, total: int) -> None:
        nonlocal paused
        report(done, total)
        if done > 0 and not paused:
            paused = True
            _pause_for_test()

    return report_then_pause


def _run(request: dict, send: Callable[..., None]) -> int:
    try:
        from dask.distributed import Client
    except ImportError as e:
        send(error={"code": "unsupported",
                    "message": f"--scheduler needs Dask in {sys.executable} ({e}): {INSTALL_HINT}"})
        return 1
    address = request["scheduler"]
    try:
        client = Client(address, timeout=SCHEDULER_CONNECT_TIMEOUT)
    except (OSError, ValueError) as e:  # refused, timed out, or not an address
        send(error={"code": "io_error", "message": f"cannot reach the Dask scheduler at '{address}': {e}"})
        return 1
    with client:
        try:
            stats = convert(request["src"], request["dst"], compression=request["compression"],
                            level=request["level"], effort=request["effort"], checksum=request["checksum"],
                            max_shard_size=request["max_shard_size"], durable=request["durable"], client=client,
                            storage_options=request.get("storage_options"),
                            progress=_pausing_once(lambda done, total: send(progress=[done, total])))
        except ZTensorError as e:  # nothing was published
            send(error={"code": e.code, "message": str(e)})
            return 1
    send(result={"objects": stats.objects, "bytes": stats.bytes, "warnings": stats.warnings,
                 "files": stats.files, "src_format": stats.src_format})
    return 0


def main(request: str, channel_fd: int) -> int:
    with os.fdopen(channel_fd, "w", buffering=1) as channel:
        def send(**message) -> None:
            channel.write(json.dumps(message) + "\n")

        try:
            return _run(json.loads(request), send)
        except KeyboardInterrupt:  # zt forwards SIGINT/SIGTERM; convert has published nothing
            return 130
