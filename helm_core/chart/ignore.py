""".helmignore rules, with Helm's semantics (``pkg/ignore``).

Patterns use Go's ``filepath.Match`` (``*`` and ``?`` never cross '/', classes
negate with ``^``); a pattern without '/' matches the base name, one with '/' the
whole path; a trailing '/' matches directories only; ``**`` is refused. Helm
always adds ``templates/.?*`` (hidden files in templates/ are never templates).

Negation keeps Helm's actual behaviour: a ``!pattern`` that does *not* match a
path ignores that path (so a negation only ever narrows what is kept).
"""
from __future__ import annotations

import functools
import re

from helm_core.errors import ChartError
from helm_core.records import record

HELMIGNORE = ".helmignore"
_DEFAULT_RULES = ("templates/.?*",)


class PatternError(ValueError):
    """A glob pattern is malformed (Go's ``filepath.ErrBadPattern``)."""


def go_match(pattern: str, name: str) -> bool:
    """Go's ``path.Match``: shell glob where ``*``/``?`` never match '/'."""
    if not _GLOB_CHARS.intersection(pattern):  # a literal name (most .helmignore lines): no regex to build
        return pattern == name
    return _compile(pattern).fullmatch(name) is not None


_GLOB_CHARS = frozenset("*?[\\")


@functools.lru_cache(maxsize=1024)
def _compile(pattern: str) -> re.Pattern[str]:
    """Translate a Go glob into a regular expression (raises PatternError when malformed)."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            cls, i = _translate_class(pattern, i)
            out.append(cls)
        elif c == "\\":
            if i + 1 >= len(pattern):
                raise PatternError("syntax error in pattern")
            out.append(re.escape(pattern[i + 1]))
            i += 2
        else:
            out.append(re.escape(c))
            i += 1
    return re.compile("".join(out), re.DOTALL)


def _translate_class(p: str, i: int) -> tuple[str, int]:
    """``[...]`` starting at ``p[i] == '['``: Go negates with '^' and never matches '/'."""
    i += 1
    negate = i < len(p) and p[i] == "^"
    if negate:
        i += 1
    ranges: list[str] = []
    first = True
    while True:
        if i >= len(p):
            raise PatternError("syntax error in pattern")
        if p[i] == "]" and not first:
            i += 1
            break
        first = False
        lo, i = _class_char(p, i)
        hi = lo
        if i < len(p) and p[i] == "-":
            hi, i = _class_char(p, i + 1)
        ranges.append(f"{re.escape(lo)}-{re.escape(hi)}" if hi != lo else re.escape(lo))
    body = "".join(ranges)
    return (f"[^/{body}]" if negate else f"(?!/)[{body}]"), i


def _class_char(p: str, i: int) -> tuple[str, int]:
    if i >= len(p) or p[i] in "-]":
        raise PatternError("syntax error in pattern")
    if p[i] == "\\":
        i += 1
        if i >= len(p):
            raise PatternError("syntax error in pattern")
    return p[i], i + 1


@record(frozen=True)
class _Rule:
    raw: str
    glob: str
    negate: bool
    dir_only: bool
    anchored: bool
    whole_path: bool

    def matches(self, path: str) -> bool:
        if self.anchored or self.whole_path:
            return go_match(self.glob, path)
        return go_match(self.glob, path.rsplit("/", 1)[-1])


class Rules:
    """An ordered set of ignore rules."""

    def __init__(self, rules: list[_Rule]) -> None:
        self._rules = rules

    @classmethod
    def parse(cls, text: str, *, source: str = HELMIGNORE, defaults: bool = True) -> "Rules":
        rules: list[_Rule] = []
        lines = text.lstrip("\ufeff").splitlines()
        for number, text_line in enumerate(lines, start=1):
            rule = _parse_rule(text_line, source=source, line=number)
            if rule is not None:
                rules.append(rule)
        if defaults:
            rules.extend(r for r in (_parse_rule(d, source="<default>", line=0) for d in _DEFAULT_RULES) if r)
        return cls(rules)

    def ignored(self, path: str, *, is_dir: bool) -> bool:
        """True when ``path`` (chart-relative, '/'-separated) is ignored."""
        if path in ("", ".", "./"):
            return False
        for rule in self._rules:
            if rule.negate:
                if rule.dir_only and not is_dir:
                    return True
                if not rule.matches(path):
                    return True
                continue
            if rule.dir_only and not is_dir:
                continue
            if rule.matches(path):
                return True
        return False


def _parse_rule(text: str, *, source: str, line: int) -> _Rule | None:
    raw = text.strip()
    if not raw or raw.startswith("#"):
        return None
    where = f"{source}:{line}" if line else source
    if "**" in raw:
        raise ChartError(f"{where}: double-star (**) syntax is not supported")
    try:
        go_match(raw, "abc")
    except PatternError:
        raise ChartError(f"{where}: syntax error in pattern {raw!r}") from None
    glob = raw
    negate = glob.startswith("!")
    if negate:
        glob = glob[1:]
    dir_only = glob.endswith("/")
    if dir_only:
        glob = glob[:-1]
    anchored = glob.startswith("/")
    if anchored:
        glob = glob[1:]
    return _Rule(raw=raw, glob=glob, negate=negate, dir_only=dir_only,
                 anchored=anchored, whole_path="/" in glob)
