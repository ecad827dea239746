import os
import sys

# Lets test modules import _util regardless of how pytest is invoked.
sys.path.insert(0, os.path.dirname(__file__))

import pytest

# `make test` sets ZT_NO_SKIPS=1: it installs every test dependency first, so
# a skip there means a missing install step or a hidden failure, and fails.
NO_SKIPS = os.environ.get("ZT_NO_SKIPS") == "1"


def pytest_sessionstart(session):
    """Under `make test`, the interpreter must be the project venv with every test package: another
    Python would fail (or pass) for reasons CI does not share (tests/build_checks/check_test_python.py)."""
    if not NO_SKIPS:
        return
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "build_checks"))
    from check_test_python import problems
    found = problems()
    if found:
        pytest.exit(f"{sys.executable} cannot run the tests: " + "; ".join(found), returncode=1)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if NO_SKIPS and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        report.longrepr = f"skipped under ZT_NO_SKIPS=1 (make test installs every dependency): {report.longrepr}"


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    report = outcome.get_result()
    if NO_SKIPS and report.skipped:  # a module-level importorskip
        report.outcome = "failed"
        report.longrepr = f"module skipped under ZT_NO_SKIPS=1: {report.longrepr}"
