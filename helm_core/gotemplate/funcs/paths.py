"""Paths: ``base``, ``dir``, ``clean``, ``ext``, ``isAbs`` (Go ``path``) and the ``os*``
forms (Go ``path/filepath``, identical on Linux where Helm runs).

Why: Python's ``posixpath`` differs from Go on edge cases (``//a`` stays ``//a``
in Python, Go cleans it to ``/a``; ``base ""`` is "." in Go), so Go's lexical
rules are followed (:mod:`helm_core.golib.gofilepath`).
"""
from __future__ import annotations

from helm_core.golib import gofilepath
from helm_core.golib.gotypes import signature


@signature("string")
def base(p: str) -> str:
    """``base``: the last element; "." for "", "/" for only slashes."""
    if p == "":
        return "."
    p = p.rstrip("/")
    if p == "":
        return "/"
    return p[p.rfind("/") + 1:]


@signature("string")
def dir_(p: str) -> str:
    """``dir``: everything but the last element, cleaned."""
    return gofilepath.dir(p)


@signature("string")
def clean(p: str) -> str:
    """``clean``."""
    return gofilepath.clean(p)


@signature("string")
def ext(p: str) -> str:
    """``ext``: the suffix from the last dot of the last element ("" if none)."""
    for i in range(len(p) - 1, -1, -1):
        if p[i] == "/":
            break
        if p[i] == ".":
            return p[i:]
    return ""


@signature("string")
def is_abs(p: str) -> bool:
    """``isAbs``."""
    return p.startswith("/")


FUNCS = {
    "base": base,
    "dir": dir_,
    "clean": clean,
    "ext": ext,
    "isAbs": is_abs,
    "osBase": base,
    "osClean": clean,
    "osDir": dir_,
    "osExt": ext,
    "osIsAbs": is_abs,
}
