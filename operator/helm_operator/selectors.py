"""Label selectors as ``--selector`` takes them: checked here so a typo is one clear line at
start-up instead of a watch the API server refuses forever.

The grammar is Kubernetes' (``k8s.io/apimachinery/pkg/labels``): comma-separated
requirements, each ``key``, ``!key``, ``key=value``, ``key==value``, ``key!=value``,
``key in (v1,v2)``, ``key notin (v1,v2)``, ``key>N`` or ``key<N``.
"""
from __future__ import annotations

import re

_NAME = r"[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?"
_KEY = rf"(?:[a-z0-9](?:[-a-z0-9.]{{0,251}}[a-z0-9])?/)?{_NAME}"
_VALUE = rf"(?:{_NAME})?"
_REQUIREMENT = re.compile(
    rf"\s*(?:!\s*{_KEY}|{_KEY}(?:\s*(?:==?|!=)\s*{_VALUE}"
    rf"|\s+(?:in|notin)\s*\(\s*{_VALUE}(?:\s*,\s*{_VALUE})*\s*\)|\s*[<>]\s*-?\d+)?)\s*")


def validate(selector: str) -> str:
    """``selector`` stripped; raises ValueError naming the first requirement that is wrong."""
    for requirement in _requirements(selector.strip()):
        if not _REQUIREMENT.fullmatch(requirement):
            raise ValueError(f"invalid label selector {selector!r}: cannot parse {requirement.strip()!r}")
    return selector.strip()


def _requirements(selector: str) -> list[str]:
    """Split at the commas outside parentheses."""
    if not selector:
        return []
    parts, depth, start = [], 0, 0
    for i, char in enumerate(selector):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(selector[start:i])
            start = i + 1
    parts.append(selector[start:])
    return parts
