"""Prints the conformance summary line ("N/M charts match exactly") after the run."""
from __future__ import annotations

from tests.conformance import results


def pytest_terminal_summary(terminalreporter, exitstatus, config):  # noqa: D103 - pytest hook
    if not results.OUTCOMES:
        return
    terminalreporter.write_sep("-", "helm conformance")
    for line in results.summary_lines():
        terminalreporter.write_line(line)
