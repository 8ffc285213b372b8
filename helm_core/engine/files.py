"""``.Files``: a chart's non-template files as Helm's ``engine.files`` exposes them.

Helm's ``files`` is a ``map[string][]byte`` with methods, so templates can both call
``.Files.Get "a.txt"`` and ``range $path, $bytes := .Files.Glob "conf/*"``. Here it is a
read-only ``dict`` (path → bytes) that is also a :class:`GoObject` with the methods.

Rules (Helm v3 ``pkg/engine/files.go``):

* ``Get``/``GetBytes`` of a missing file give ``""``/empty bytes, never an error;
* ``Glob`` uses gobwas/glob with ``/`` as separator: ``*`` and ``?`` stop at ``/``, ``**``
  crosses it, ``[!a-z]`` classes, ``{a,b}`` alternatives, ``\\`` escapes; a pattern that
  does not compile matches everything (Helm falls back to ``**``);
* ``Lines`` drops one trailing newline and splits on ``\\n``;
* ``AsConfig``/``AsSecrets`` key files by base name and render them with ``toYaml``
  (secrets base64-encoded).

Bytes become text with ``surrogateescape`` so binary content survives a later ``b64enc``.
"""
from __future__ import annotations

import base64
import functools
import posixpath
import re
from typing import Any, ClassVar, Iterable

from helm_core import goyaml
from helm_core.gotemplate import gotypes

#: The separator gobwas/glob is compiled with by Helm.
GLOB_SEPARATOR = "/"
#: How many distinct compiled glob patterns are kept.
GLOB_CACHE_SIZE = 256


def bytes_to_text(data: bytes) -> str:
    """Go's ``string([]byte)``: invalid UTF-8 bytes kept as surrogate escapes."""
    return data.decode("utf-8", "surrogateescape")


class GlobSyntaxError(ValueError):
    """A gobwas/glob pattern that does not compile."""


def _glob_class(pattern: str, i: int) -> tuple[str, int]:
    """Translate ``[...]`` starting after ``[``; returns (regex, index after ``]``)."""
    negate = False
    if i < len(pattern) and pattern[i] == "!":
        negate = True
        i += 1
    parts: list[str] = []
    while True:
        if i >= len(pattern):
            raise GlobSyntaxError("unexpected end of input in character class")
        ch = pattern[i]
        if ch == "]":
            i += 1
            break
        if ch == "\\":
            i += 1
            if i >= len(pattern):
                raise GlobSyntaxError("unexpected end of input after escape")
            ch = pattern[i]
        i += 1
        if i + 1 < len(pattern) and pattern[i] == "-" and pattern[i + 1] != "]":
            hi = pattern[i + 1]
            i += 2
            parts.append(re.escape(ch) + "-" + re.escape(hi))
        else:
            parts.append(re.escape(ch))
    if not parts:
        raise GlobSyntaxError("empty character class")
    return ("[^" if negate else "[") + "".join(parts) + "]", i


def _glob_regex(pattern: str, i: int, in_braces: bool) -> tuple[str, int]:
    """Translate until end (or, inside ``{}``, until ``,``/``}``)."""
    out: list[str] = []
    sep = re.escape(GLOB_SEPARATOR)
    while i < len(pattern):
        ch = pattern[i]
        if in_braces and ch in ",}":
            return "".join(out), i
        if ch == "*":
            if pattern[i + 1:i + 2] == "*":
                out.append(".*")
                i += 2
            else:
                out.append(f"[^{sep}]*")
                i += 1
        elif ch == "?":
            out.append(f"[^{sep}]")
            i += 1
        elif ch == "[":
            cls, i = _glob_class(pattern, i + 1)
            out.append(cls)
        elif ch == "{":
            alternatives: list[str] = []
            i += 1
            while True:
                alt, i = _glob_regex(pattern, i, True)
                alternatives.append(alt)
                if i >= len(pattern):
                    raise GlobSyntaxError("unexpected end of input in alternatives")
                if pattern[i] == "}":
                    i += 1
                    break
                i += 1  # ','
            out.append("(?:" + "|".join(alternatives) + ")")
        elif ch == "\\":
            if i + 1 >= len(pattern):
                raise GlobSyntaxError("unexpected end of input after escape")
            out.append(re.escape(pattern[i + 1]))
            i += 2
        else:
            out.append(re.escape(ch))
            i += 1
    if in_braces:
        raise GlobSyntaxError("unexpected end of input in alternatives")
    return "".join(out), i


@functools.lru_cache(maxsize=GLOB_CACHE_SIZE)
def compile_glob(pattern: str) -> re.Pattern[str]:
    """A gobwas/glob pattern as a regex (Helm's fallback ``**`` when it does not compile)."""
    try:
        regex, _ = _glob_regex(pattern, 0, False)
    except GlobSyntaxError:
        regex = ".*"
    return re.compile(regex + r"\Z", re.DOTALL)


class Files(dict, gotypes.GoObject):  # type: ignore[type-arg]
    """``engine.files``: path → bytes, plus Helm's template methods."""

    go_type: ClassVar[str] = "engine.files"
    go_members: ClassVar[frozenset[str]] = frozenset(
        {"Get", "GetBytes", "Glob", "Lines", "AsConfig", "AsSecrets"}
    )

    @classmethod
    def from_chart_files(cls, files: Iterable[Any]) -> "Files":
        """From the chart model's ``File`` objects (``name``, ``data``)."""
        return cls({f.name: f.data for f in files})

    def go_field(self, name: str) -> Any:
        if name in self.go_members:
            return getattr(self, name)
        return self.get(name)

    def go_json_value(self) -> dict[str, Any]:
        return {k: bytes(v) for k, v in self.items()}


    @gotypes.signature("string")
    def GetBytes(self, name: str) -> bytes:  # noqa: N802 - Go method name
        """The file's bytes; empty when it does not exist."""
        return bytes(self.get(name, b""))

    @gotypes.signature("string")
    def Get(self, name: str) -> str:  # noqa: N802 - Go method name
        """The file as text; ``""`` when it does not exist."""
        return bytes_to_text(self.GetBytes(name))

    @gotypes.signature("string")
    def Glob(self, pattern: str) -> "Files":  # noqa: N802 - Go method name
        """The files whose path matches a gobwas/glob pattern."""
        regex = compile_glob(pattern)
        return Files({k: v for k, v in self.items() if regex.match(k)})

    @gotypes.signature("string")
    def Lines(self, path: str) -> list[str]:  # noqa: N802 - Go method name
        """The file split on ``\\n`` after dropping one trailing newline."""
        data = self.get(path, b"")
        if not data:
            return []
        text = bytes_to_text(bytes(data))
        if text.endswith("\n"):
            text = text[:-1]
        return text.split("\n")

    @gotypes.signature()
    def AsConfig(self) -> str:  # noqa: N802 - Go method name
        """ConfigMap ``data``: base name → content, as ``toYaml`` prints it."""
        mapping = {posixpath.basename(k): bytes_to_text(bytes(v)) for k, v in self.items()}
        return goyaml.dump(mapping).removesuffix("\n")

    @gotypes.signature()
    def AsSecrets(self) -> str:  # noqa: N802 - Go method name
        """Secret ``data``: base name → base64 content, as ``toYaml`` prints it."""
        mapping = {
            posixpath.basename(k): base64.b64encode(bytes(v)).decode("ascii")
            for k, v in self.items()
        }
        return goyaml.dump(mapping).removesuffix("\n")

    def __str__(self) -> str:
        inner = " ".join(f"{k}:[{' '.join(str(b) for b in self[k])}]" for k in sorted(self))
        return f"map[{inner}]"

    def __hash__(self) -> int:  # type: ignore[override]  # identity: dicts are unhashable
        return id(self)
