"""Kubernetes label selectors, as ``k8s.io/apimachinery/pkg/labels`` reads them: checked and matched.

One grammar for the controller's ``--selector`` (checked at start-up, so a typo is one clear
line instead of a watch the API server refuses forever) and for post-renderer targets
(``labelSelector``/``annotationSelector``, matched here): comma-separated requirements, each
``key``, ``!key``, ``key=value``, ``key==value``, ``key!=value``, ``key in (v1,v2)``,
``key notin (v1,v2)``, ``key>N`` or ``key<N``.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_NAME = r"[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?"
_KEY = rf"(?:[a-z0-9](?:[-a-z0-9.]{{0,251}}[a-z0-9])?/)?{_NAME}"
_VALUE = rf"(?:{_NAME})?"
_REQUIREMENT = re.compile(
    rf"\s*(?:!\s*{_KEY}|{_KEY}(?:\s*(?:==?|!=)\s*{_VALUE}"
    rf"|\s+(?:in|notin)\s*\(\s*{_VALUE}(?:\s*,\s*{_VALUE})*\s*\)|\s*[<>]\s*-?\d+)?)\s*")
_SET = re.compile(rf"\s*({_KEY})\s+(in|notin)\s*\(([^)]*)\)\s*")
_COMPARE = re.compile(rf"\s*({_KEY})\s*(==|=|!=)\s*({_VALUE})\s*")
_ORDER = re.compile(rf"\s*({_KEY})\s*([<>])\s*(-?\d+)\s*")
_EXISTS = re.compile(rf"\s*(!?)\s*({_KEY})\s*")


def requirements(selector: str) -> list[str]:
    """The requirements of ``selector``: split at the commas outside parentheses."""
    if not selector.strip():
        return []
    parts, depth, start = [], 0, 0
    for i, char in enumerate(selector):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(selector[start:i])
            start = i + 1
    parts.append(selector[start:])
    return parts


def validate(selector: str) -> str:
    """``selector`` stripped; raises ValueError naming the first requirement that is wrong."""
    for requirement in requirements(selector.strip()):
        if not _REQUIREMENT.fullmatch(requirement):
            raise ValueError(f"invalid label selector {selector!r}: cannot parse {requirement.strip()!r}")
    return selector.strip()


def matches(selector: str, labels: Mapping[str, Any]) -> bool:
    """True when ``labels`` satisfy ``selector`` (empty matches everything); ValueError, as
    :func:`validate`, when it does not parse."""
    for requirement in requirements(validate(selector or "")):
        if found := _SET.fullmatch(requirement):
            key, op, values = found.groups()
            has = key in labels and str(labels[key]) in {v.strip() for v in values.split(",")}
            if (op == "in") != has:
                return False
        elif found := _COMPARE.fullmatch(requirement):
            key, op, value = found.groups()
            if (op == "!=") == (key in labels and str(labels[key]) == value):
                return False
        elif found := _ORDER.fullmatch(requirement):
            key, op, bound = found.groups()
            try:
                number = int(str(labels[key])) if key in labels else None
            except ValueError:
                number = None
            if number is None or not (number > int(bound) if op == ">" else number < int(bound)):
                return False
        elif found := _EXISTS.fullmatch(requirement):
            negate, key = found.groups()
            if bool(negate) == (key in labels):
                return False
    return True
