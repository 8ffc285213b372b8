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

from helm_core.errors import ChartError
from helm_core.golib import goutf8
from helm_core.support.records import record

HELMIGNORE = ".helmignore"
_DEFAULT_RULES = ("templates/.?*",)


class PatternError(ValueError):
    """A glob pattern is malformed (Go's ``filepath.ErrBadPattern``)."""


_SEPARATOR = ord("/")


@functools.lru_cache(maxsize=16384)
def go_match(pattern: str, name: str) -> bool:
    """Go's ``filepath.Match`` on Unix (raises PatternError for Go's ``ErrBadPattern``).

    Go's own algorithm, not a regular expression: each ``*`` takes the first place where the
    next chunk matches and is never revisited, so answers can differ from a regex's (``*a[^x]*b``
    does not match ``aaa/b`` in Go). It is also why a hostile pattern cannot backtrack: the work
    is bounded by len(pattern) x len(name). Bytes, as Go compares them. Answers are kept (an
    in-process load of a chart asks the same questions again).
    """
    if not _GLOB_CHARS.intersection(pattern):  # a literal name (most .helmignore lines)
        return pattern == name
    # "*.swp" and "name*": the star takes what the literal leaves, if that holds no '/'.
    if pattern[0] == "*" and not _GLOB_CHARS.intersection(pattern[1:]):
        return name.endswith(pattern[1:]) and "/" not in name[:len(name) - len(pattern) + 1]
    if pattern[-1] == "*" and not _GLOB_CHARS.intersection(pattern[:-1]):
        return name.startswith(pattern[:-1]) and "/" not in name[len(pattern) - 1:]
    return _match(pattern.encode("utf-8", "surrogateescape"), name.encode("utf-8", "surrogateescape"))


_GLOB_CHARS = frozenset("*?[\\")
#: What a pattern that Go checked on one name may still fail on with another: a class, an escape.
_MAY_FAIL = frozenset("[\\")


def _match(pattern: bytes, name: bytes) -> bool:
    at = 0  # how much of name is matched: offsets, so that no try copies the name
    while pattern:
        star, chunk, pattern = _scan_chunk(pattern)
        if star and not chunk:
            return name.find(b"/", at) < 0  # a trailing * takes the rest of this path segment
        end = _match_chunk(chunk, name, at)
        if end is None or end < len(name) and not pattern:
            end = _after_star(chunk, name, at, last=not pattern) if star else None
            if end is None:
                return False
        at = end
    return at == len(name)


def _after_star(chunk: bytes, name: bytes, at: int, *, last: bool) -> int | None:
    """The first place after a ``*`` (which stops at '/') where ``chunk`` matches: where it ends."""
    for i in range(at, len(name)):
        if name[i] == _SEPARATOR:
            break
        end = _match_chunk(chunk, name, i + 1)
        if end is not None and not (last and end < len(name)):
            return end
    return None


def _scan_chunk(pattern: bytes) -> tuple[bool, bytes, bytes]:
    """(a leading star?, the chunk up to the next star outside [], the rest)."""
    stripped = pattern.lstrip(b"*")
    star = len(stripped) != len(pattern)
    in_range = False
    i = 0
    while i < len(stripped):
        c = stripped[i]
        if c == 0x5C and i + 1 < len(stripped):  # backslash
            i += 1
        elif c == 0x5B:  # [
            in_range = True
        elif c == 0x5D:  # ]
            in_range = False
        elif c == 0x2A and not in_range:  # *
            return star, stripped[:i], stripped[i:]
        i += 1
    return star, stripped, b""


def _match_chunk(chunk: bytes, name: bytes, at: int) -> int | None:
    """Where ``chunk`` matched from ``name[at:]`` ends, or None; PatternError when malformed."""
    failed = False
    while chunk:
        failed = failed or at >= len(name)
        c = chunk[0]
        if c == 0x5B:  # [
            rune = -1
            if not failed:
                rune, width = goutf8.decode_rune(name, at)
                at += width
            chunk = chunk[1:]
            negated = chunk[:1] == b"^"
            if negated:
                chunk = chunk[1:]
            matched, ranges = False, 0
            while True:
                if chunk[:1] == b"]" and ranges:
                    chunk = chunk[1:]
                    break
                lo, chunk = _class_char(chunk)
                hi = lo
                if chunk[:1] == b"-":
                    hi, chunk = _class_char(chunk[1:])
                matched = matched or lo <= rune <= hi
                ranges += 1
            failed = failed or matched == negated
        elif c == 0x3F:  # ?
            if not failed:
                failed = name[at] == _SEPARATOR
                at += goutf8.decode_rune(name, at)[1]
            chunk = chunk[1:]
        else:
            if c == 0x5C:  # backslash: the next byte is literal
                chunk = chunk[1:]
                if not chunk:
                    raise PatternError("syntax error in pattern")
            if not failed:
                failed = chunk[0] != name[at]
                at += 1
            chunk = chunk[1:]
    return None if failed else at


def _class_char(chunk: bytes) -> tuple[int, bytes]:
    """Go's ``getEsc``: one (possibly escaped) character of a class, and what follows it."""
    if not chunk or chunk[0] in b"-]":
        raise PatternError("syntax error in pattern")
    if chunk[0] == 0x5C:
        chunk = chunk[1:]
        if not chunk:
            raise PatternError("syntax error in pattern")
    rune, width = goutf8.decode_rune(chunk)
    if rune == goutf8.RUNE_ERROR and width == 1 or len(chunk) == width:
        raise PatternError("syntax error in pattern")
    return rune, chunk[width:]


@record(frozen=True)
class _Rule:
    raw: str
    glob: str
    negate: bool
    dir_only: bool
    anchored: bool
    whole_path: bool

    def matches(self, path: str) -> bool:
        name = path if self.anchored or self.whole_path else path[path.rfind("/") + 1:]
        try:
            return go_match(self.glob, name)
        except PatternError as exc:  # checked on "abc" only, it may fail on this name
            _failed_to_compile(self, exc)
            return False


def _failed_to_compile(rule: _Rule, exc: PatternError) -> None:
    """Helm logs a rule that fails on a name, and takes it as no match (from one of three
    matchers, by the rule's form: its log line names the matcher's line)."""
    from helm_core.golib import gostrconv
    from helm_core.support import helmlog

    where = "rules.go:180" if rule.anchored else "rules.go:190" if rule.whole_path else "rules.go:202"
    helmlog.warn(__name__, where, f"Failed to compile {gostrconv.quote(rule.glob)}: {exc}")


class Rules:
    """An ordered set of ignore rules.

    Answers are kept per rule set, and rule sets per ``.helmignore`` text: each warm load of a
    chart asks the same questions of the same rules (a few hundred paths times ~20 rules).
    """

    #: Answers kept per rule set; past this many (paths of many charts) they start again.
    MAX_ANSWERS = 1 << 16

    def __init__(self, rules: list[_Rule]) -> None:
        self._rules = rules
        self._answers: dict[tuple[str, bool], bool] = {}
        # Helm ignores a path when any rule says so (no rule keeps it early), so rules may be
        # asked in any order: the commonest, literal base names and "*suffix" ones, by one set
        # lookup and one endswith; the others one by one. In Helm's order when a rule can fail
        # on a name (a class, an escape): Helm logs the failures of the rules it asks.
        names: set[str] = set()
        dir_names: set[str] = set()
        suffixes: list[str] = []
        others: list[_Rule] = []
        for rule in rules:
            if rule.negate or rule.anchored or rule.whole_path:
                others.append(rule)
            elif not _GLOB_CHARS.intersection(rule.glob):
                (dir_names if rule.dir_only else names).add(rule.glob)
            elif not rule.dir_only and rule.glob[0] == "*" and not _GLOB_CHARS.intersection(rule.glob[1:]):
                suffixes.append(rule.glob[1:])
            else:
                others.append(rule)
        self._grouped = not any(_MAY_FAIL.intersection(rule.glob) for rule in others)
        self._names = frozenset(names)
        self._dir_names = frozenset(dir_names)
        self._suffixes = tuple(suffixes)
        self._others = others if self._grouped else rules

    @classmethod
    def parse(cls, text: str, *, source: str = HELMIGNORE, defaults: bool = True) -> Rules:
        return _parse_rules(text, source, defaults)

    def ignored(self, path: str, *, is_dir: bool) -> bool:
        """True when ``path`` (chart-relative, '/'-separated) is ignored."""
        key = (path, is_dir)
        answer = self._answers.get(key)
        if answer is None:
            if len(self._answers) >= self.MAX_ANSWERS:
                self._answers.clear()
            answer = self._answers[key] = self._decide(path, is_dir=is_dir)
        return answer

    def _decide(self, path: str, *, is_dir: bool) -> bool:
        if path in ("", ".", "./"):
            return False
        if self._grouped:
            base = path[path.rfind("/") + 1:]
            if base in self._names or is_dir and base in self._dir_names or base.endswith(self._suffixes):
                return True
        for rule in self._others:
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


@functools.lru_cache(maxsize=64)
def _parse_rules(text: str, source: str, defaults: bool) -> Rules:
    """Rules of a ``.helmignore`` text (kept: a rule set never changes once made; a text that
    is refused raises each time, as exceptions are not kept)."""
    rules: list[_Rule] = []
    lines = text.lstrip("\ufeff").splitlines()
    for number, text_line in enumerate(lines, start=1):
        rule = _parse_rule(text_line, source=source, line=number)
        if rule is not None:
            rules.append(rule)
    if defaults:
        rules.extend(r for r in (_parse_rule(d, source="<default>", line=0) for d in _DEFAULT_RULES) if r)
    return Rules(rules)


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
