""".helmignore rules, with Helm's semantics (``pkg/ignore``).

Patterns use Go's ``filepath.Match`` (``*`` and ``?`` never cross '/', classes
negate with ``^``); a pattern without '/' matches the base name, one with '/' the
whole path; a trailing '/' matches directories only; ``**`` is refused. Helm
always adds ``templates/.?*`` (hidden files in templates/ are never templates).

Negation keeps Helm's actual behaviour: a ``!pattern`` that does *not* match a
path ignores that path (so a negation only ever narrows what is kept).
"""
from __future__ import annotations

from dataclasses import dataclass

from helm_core.errors import ChartError

HELMIGNORE = ".helmignore"
_DEFAULT_RULES = ("templates/.?*",)


class PatternError(ValueError):
    """A glob pattern is malformed (Go's ``filepath.ErrBadPattern``)."""


def go_match(pattern: str, name: str) -> bool:
    """Go's ``path.Match``: shell glob where ``*``/``?`` never match '/'."""
    return _match(pattern, 0, name, 0)


def _match(p: str, pi: int, s: str, si: int) -> bool:
    while pi < len(p):
        c = p[pi]
        if c == "*":
            while pi < len(p) and p[pi] == "*":
                pi += 1
            if pi == len(p):
                return "/" not in s[si:]
            # Validate the rest of the pattern even when no name is left (Go reports bad patterns).
            for k in range(si, len(s) + 1):
                if _match(p, pi, s, k):
                    return True
                if k < len(s) and s[k] == "/":
                    break
            _check_pattern(p[pi:])
            return False
        if si >= len(s):
            _check_pattern(p[pi:])
            return False
        if c == "?":
            if s[si] == "/":
                return False
            pi += 1
            si += 1
        elif c == "[":
            matched, pi = _match_class(p, pi, s[si])
            if not matched:
                return False
            si += 1
        elif c == "\\":
            pi += 1
            if pi >= len(p):
                raise PatternError("syntax error in pattern")
            if p[pi] != s[si]:
                return False
            pi += 1
            si += 1
        else:
            if c != s[si]:
                return False
            pi += 1
            si += 1
    return si == len(s)


def _match_class(p: str, pi: int, ch: str) -> tuple[bool, int]:
    """Match one character against ``[...]`` starting at ``p[pi] == '['``."""
    pi += 1
    negate = pi < len(p) and p[pi] == "^"
    if negate:
        pi += 1
    matched = False
    first = True
    while True:
        if pi >= len(p):
            raise PatternError("syntax error in pattern")
        if p[pi] == "]" and not first:
            pi += 1
            break
        first = False
        lo, pi = _class_char(p, pi)
        hi = lo
        if pi < len(p) and p[pi] == "-":
            hi, pi = _class_char(p, pi + 1)
        if lo <= ch <= hi:
            matched = True
    if ch == "/":
        return False, pi
    return matched != negate, pi


def _class_char(p: str, pi: int) -> tuple[str, int]:
    if pi >= len(p) or p[pi] in "-]":
        raise PatternError("syntax error in pattern")
    if p[pi] == "\\":
        pi += 1
        if pi >= len(p):
            raise PatternError("syntax error in pattern")
    return p[pi], pi + 1


def _check_pattern(p: str) -> None:
    """Raise for a malformed remainder, as Go does while scanning."""
    for i, c in enumerate(p):
        if c == "[":
            _match_class(p, i, "a")
        elif c == "\\" and i == len(p) - 1:
            raise PatternError("syntax error in pattern")


@dataclass(frozen=True)
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
