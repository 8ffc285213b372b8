"""Errors of the e2e control-plane harness.

    HarnessError              the local control plane cannot be built, started or reached
     ├── ToolBuildError       a Go tool failed to build (names the tool, carries the log tail)
     ├── ToolsMissingError    binaries are absent and building was not allowed or possible
     └── ComponentError       a control-plane process failed to start or become ready

The harness is test infrastructure, not part of helm_core, so it keeps its own small tree
instead of widening helm_core's.
"""
from __future__ import annotations


class HarnessError(Exception):
    """Base of every error the harness raises on purpose."""


class ToolBuildError(HarnessError):
    """``go build`` of one tool failed; ``tool`` names it and ``log_tail`` holds its last lines."""

    def __init__(self, tool: str, log_tail: str) -> None:
        super().__init__(f"building {tool} failed:\n{log_tail}")
        self.tool = tool
        self.log_tail = log_tail


class ToolsMissingError(HarnessError):
    """The control-plane binaries are not built and cannot be built here (no Go toolchain)."""


class ComponentError(HarnessError):
    """A control-plane component exited early or never became ready; names it and its log."""

    def __init__(self, component: str, reason: str, log_tail: str = "") -> None:
        message = f"{component}: {reason}"
        if log_tail:
            message += f"\n--- last lines of {component}.log ---\n{log_tail}"
        super().__init__(message)
        self.component = component
        self.reason = reason
        self.log_tail = log_tail
