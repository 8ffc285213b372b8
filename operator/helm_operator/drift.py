"""Drift, as a HelmRequest asks for it: ``spec.driftDetection.mode`` and what is reported.

helm_core's drift action (:mod:`helm_core.action.drift`) finds and corrects drifted objects;
this module reads the mode and the ignore rules and words the report. Modes: ``disabled``
(default), ``warn`` (report drift), ``enabled`` (report and correct it); ``ignore`` as Flux's
(JSON pointers per target, left out of comparison and correction). Limits: ``MAX_REPORTED``
drifted objects are named.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from helm_core.action.drift import Drifted, IgnoreRule, correct, detect, ignore_rules, refusals  # re-exported

__all__ = ["MODES", "MAX_REPORTED", "Drifted", "correct", "describe", "detect", "failure_message", "ignore",
           "mode"]

MODES = ("disabled", "warn", "enabled")
MAX_REPORTED = 20


def mode(spec: Mapping[str, Any]) -> str:
    """``spec.driftDetection.mode`` (default disabled)."""
    return str((spec.get("driftDetection") or {}).get("mode") or "disabled")


def ignore(spec: Mapping[str, Any]) -> tuple[IgnoreRule, ...]:
    """``spec.driftDetection.ignore`` (Flux's rules)."""
    return ignore_rules((spec.get("driftDetection") or {}).get("ignore"))


def describe(found: Sequence[Drifted]) -> list[str]:
    """The lines to report: at most ``MAX_REPORTED``, then how many more."""
    lines = [d.line for d in found[:MAX_REPORTED]]
    if len(found) > MAX_REPORTED:
        lines.append(f"... and {len(found) - MAX_REPORTED} more")
    return lines


def failure_message(release: str, exc: BaseException) -> str:
    """Flux's words for a drift correction that failed (its Warning ``DriftCorrectionFailed``
    Event): the release (``NS/NAME.vVERSION``), then each object's error on a line of its own."""
    return f"Failed to correct cluster state of release {release}:\n" + "\n".join(refusals(exc))
