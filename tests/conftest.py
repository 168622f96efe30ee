"""Session-wide test plumbing: the tally of injected faults (see ``tests/faultlog.py``).

At the end of the run the totals of faults injected and survived are printed, one line per
kind; a fault that was not survived fails the run even if its test did not.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import faultlog
import pytest

_failed: set[str] = set()
_xfailed: set[str] = set()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Settle the faults a test injected with ``faultlog.injected`` once it has ended."""
    if report.failed and not str(report.longrepr).startswith("[XPASS(strict)]"):
        _failed.add(report.nodeid)  # an xfail test that now passes fails, but its faults were survived
    elif report.skipped and hasattr(report, "wasxfail"):
        _xfailed.add(report.nodeid)
    if report.when == "teardown":
        if report.nodeid in _failed:
            faultlog.settle("failed")
        elif report.nodeid in _xfailed:
            faultlog.settle("xfailed")
        else:
            faultlog.settle("passed")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if faultlog.not_survived() and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config) -> None:
    lines = faultlog.summary()
    if not lines:
        return
    terminalreporter.section("fault injection")
    for line in lines:
        terminalreporter.line(line)
    lost = faultlog.not_survived()
    if lost:
        terminalreporter.line(f"faults NOT survived: {lost}: the run fails", red=True)


@pytest.fixture()
def short_dir() -> Iterator[Path]:
    """A folder with a short path (a unix socket's path has at most 107 bytes; tmp_path's may be longer)."""
    folder = Path(tempfile.mkdtemp(prefix="sb-test-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)
