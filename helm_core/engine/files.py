"""``.Files``: a chart's non-template files as Helm's ``engine.files`` exposes them.

Helm's ``files`` is a ``map[string][]byte`` with methods, so templates can both call
``.Files.Get "a.txt"`` and ``range $path, $bytes := .Files.Glob "conf/*"``. Here it is a
read-only ``dict`` (path → bytes) that is also a :class:`GoObject` with the methods.

Rules (Helm v3 ``pkg/engine/files.go``):

* ``Get``/``GetBytes`` of a missing file give ``""``/empty bytes, never an error;
* ``Glob`` uses gobwas/glob with ``/`` as separator: ``*`` and ``?`` stop at ``/``, ``**``
  crosses it, ``[!a-z]`` classes (one range or a list: ``[a-z0-9]`` does not compile),
  ``{a,b}`` alternatives, ``\\`` escapes; a pattern that does not compile matches everything
  (Helm falls back to ``**``). Patterns run as Go regexps: linear time whatever the chart gives;
* ``Lines`` drops one trailing newline and splits on ``\\n``;
* ``AsConfig``/``AsSecrets`` key files by base name and render them with ``toYaml``
  (secrets base64-encoded).

Bytes become text with ``surrogateescape`` so binary content survives a later ``b64enc``.
"""
from __future__ import annotations

import functools
import posixpath
from collections.abc import Iterable

from helm_core.golib import gojson, gotypes, goyaml

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar

    from helm_core.golib.goregexp import Regexp

#: The separator gobwas/glob is compiled with by Helm.
GLOB_SEPARATOR = "/"
#: How many distinct compiled glob patterns are kept.
GLOB_CACHE_SIZE = 256


def bytes_to_text(data: bytes) -> str:
    """Go's ``string([]byte)``: invalid UTF-8 bytes kept as surrogate escapes."""
    return data.decode("utf-8", "surrogateescape")


class GlobSyntaxError(ValueError):
    """A gobwas/glob pattern that does not compile."""


_SINGLE = f"[^{GLOB_SEPARATOR}]"
_TEXT_BREAKERS = "?*[{"
_TERMS_BREAKERS = _TEXT_BREAKERS + "},"


def _rune_class(chars: str, negate: bool) -> str:
    return ("[^" if negate else "[") + "".join(f"\\x{{{ord(c):X}}}" for c in chars) + "]"


def _glob_text(pattern: str, i: int, breakers: str) -> tuple[str, int]:
    """gobwas ``fetchText``: runes up to an unescaped breaker; ``\\`` takes the next rune as is."""
    out: list[str] = []
    escaped = False
    while i < len(pattern):
        c = pattern[i]
        if not escaped and c == "\\":
            escaped = True
            i += 1
            continue
        if not escaped and c in breakers:
            break
        escaped = False
        out.append(c)
        i += 1
    return "".join(out), i


def _glob_range(pattern: str, i: int) -> tuple[str, int]:
    """gobwas's ``[...]`` after the ``[``: one range ``a-z`` or a list of runes, ``!`` negating.
    Classes may match the separator (gobwas's List and Range do not exclude it)."""
    negate = seen_not = want_hi = want_close = False
    lo = hi = chars = ""
    while True:
        if i >= len(pattern):
            raise GlobSyntaxError("unexpected end of input")
        c = pattern[i]
        i += 1
        if want_close:
            if c != "]":
                raise GlobSyntaxError("expected close range character")
            break
        if want_hi:
            hi, want_close = c, True
            continue
        if not seen_not and c == "!":
            negate = seen_not = True
            continue
        if pattern[i:i + 1] == "-":
            lo, want_hi = c, True
            i += 1
            continue
        chars, i = _glob_text(pattern, i - 1, "]")
        want_close = True
    if bool(chars) == bool(lo and hi):
        raise GlobSyntaxError("could not parse range")
    if chars:
        return _rune_class(chars, negate), i
    if hi < lo:
        raise GlobSyntaxError(f"hi character '{hi}' should be greater than lo '{lo}'")
    return ("[^" if negate else "[") + f"\\x{{{ord(lo):X}}}-\\x{{{ord(hi):X}}}]", i


def _glob_regex(pattern: str) -> str:
    """A gobwas/glob pattern (separator ``/``) as Go regexp syntax, read as gobwas's lexer and
    parser read it: ``**`` crosses ``/``, ``*`` and ``?`` do not; ``{a,b}`` alternatives (an
    unclosed ``{`` ends with the pattern); ``,`` and ``}`` are text outside braces."""
    from helm_core.golib import goregexp  # with Files.Glob only: most charts never glob

    if any("\udc80" <= c <= "\udcff" for c in pattern):
        raise GlobSyntaxError("could not read rune")
    terms: list[list[list[str]]] = [[[]]]  # nested {...}: alternatives, each a list of parts
    i = 0
    while i < len(pattern):
        c, parts = pattern[i], terms[-1][-1]
        inside = len(terms) > 1
        if c == "{":
            terms.append([[]])
        elif c == "," and inside:
            terms[-1].append([])
        elif c == "}" and inside:
            alternatives = terms.pop()
            terms[-1][-1].append("(?:" + "|".join("".join(a) for a in alternatives) + ")")
        elif c == "[":
            part, i = _glob_range(pattern, i + 1)
            parts.append(part)
            continue
        elif c == "?":
            parts.append(_SINGLE)
        elif c == "*":
            if pattern.startswith("**", i):
                parts.append("(?s:.*)")
                i += 1
            else:
                parts.append(_SINGLE + "*")
        else:
            text, i = _glob_text(pattern, i, _TERMS_BREAKERS if inside else _TEXT_BREAKERS)
            parts.append(goregexp.quote_meta(text))
            continue
        i += 1
    while len(terms) > 1:
        alternatives = terms.pop()
        terms[-1][-1].append("(?:" + "|".join("".join(a) for a in alternatives) + ")")
    return "".join(terms[0][0])


@functools.lru_cache(maxsize=GLOB_CACHE_SIZE)
def compile_glob(pattern: str) -> Regexp:
    """A gobwas/glob pattern as a whole-path Go regexp (linear time); Helm's fallback ``**``
    when it does not compile."""
    try:
        body = _glob_regex(pattern)
    except GlobSyntaxError:
        body = "(?s:.*)"
    from helm_core.golib import goregexp

    return goregexp.compile(f"^(?:{body})$")


class Files(dict, gotypes.GoObject):  # type: ignore[type-arg]
    """``engine.files``: path → bytes, plus Helm's template methods."""

    go_type: ClassVar[str] = "engine.files"
    go_members: ClassVar[frozenset[str]] = frozenset(
        {"Get", "GetBytes", "Glob", "Lines", "AsConfig", "AsSecrets"}
    )

    @classmethod
    def from_chart_files(cls, files: Iterable[Any]) -> Files:
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
    def Glob(self, pattern: str) -> Files:  # noqa: N802 - Go method name
        """The files whose path matches a gobwas/glob pattern."""
        glob = compile_glob(pattern)
        return Files({k: v for k, v in self.items() if glob.match_string(k)})

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
            posixpath.basename(k): gojson.base64_text(bytes(v))
            for k, v in self.items()
        }
        return goyaml.dump(mapping).removesuffix("\n")

    def __str__(self) -> str:
        inner = " ".join(f"{k}:[{' '.join(str(b) for b in self[k])}]" for k in sorted(self))
        return f"map[{inner}]"

    def __hash__(self) -> int:  # type: ignore[override]  # identity: dicts are unhashable
        return id(self)
