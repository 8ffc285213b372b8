"""Semantic versions and version constraints, exactly as Masterminds semver v3.5.0.

Helm 3.22 and Sprig use ``github.com/Masterminds/semver/v3`` v3.5.0 for chart
versions, dependency ranges, ``kubeVersion`` and the ``semver``/``semverCompare``
template functions. Charts must get the same answers (and error texts) here, so this
module follows that library rule for rule:

- :meth:`Version.parse` is ``NewVersion`` in its default (coercing) mode: an optional
  ``v``, a missing minor/patch reads as 0, leading zeros in major/minor/patch are
  accepted; prerelease identifiers must not be numbers with a leading zero.
- :meth:`Version.parse_strict` is ``StrictNewVersion``: exactly ``X.Y.Z[-pre][+meta]``.
- Ordering ignores metadata; a prerelease sorts before its release; prerelease
  identifiers compare as numbers when both are (at most 2**64-1), a number sorts before
  a word, words compare byte-wise, and a missing identifier sorts first.
- :class:`Constraints`: ``||`` separates OR groups, ``,`` or spaces AND inside one;
  ``A - B`` means ``>= A, <= B``; ``x``, ``X``, ``*`` or a missing part is a wildcard.
  A group admits prerelease versions only when one of its constraints carries a
  prerelease, or when ``include_prerelease`` is set.
- Regular expressions behave like Go's RE2: ``\\s`` is ``[\\t\\n\\f\\r ]``, digits are
  ASCII, the end anchor is the very end of the text, and lengths count UTF-8 bytes.
"""
from __future__ import annotations

import functools
import sys
from collections.abc import Callable

from helm_core import errors
from helm_core.golib import gounicode
from helm_core.support import cachekeys, memo, patterns, records

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeAlias

#: Longest version string accepted, in UTF-8 bytes (Masterminds ``MaxVersionLen``).
MAX_VERSION_LEN = 256
#: Longest constraint string accepted, in UTF-8 bytes (``MaxConstraintLen``).
MAX_CONSTRAINT_LEN = 512
#: Most ``||`` groups in one constraint string (``MaxConstraintGroups``).
MAX_CONSTRAINT_GROUPS = 32
#: Version numbers are Go ``uint64``.
UINT64_MAX = 2**64 - 1

ERR_INVALID_SEMVER = "invalid semantic version"
ERR_EMPTY = "version string empty"
ERR_INVALID_CHARACTERS = "invalid characters in version"
ERR_SEGMENT_STARTS_ZERO = "version segment starts with 0"
ERR_INVALID_METADATA = "invalid metadata string"
ERR_INVALID_PRERELEASE = "invalid prerelease string"
ERR_VERSION_TOO_LONG = f"version string is too long (max {MAX_VERSION_LEN} bytes)"
ERR_CONSTRAINT_TOO_LONG = f"constraint string is too long (max {MAX_CONSTRAINT_LEN} bytes)"
ERR_TOO_MANY_GROUPS = f"too many constraint groups (max {MAX_CONSTRAINT_GROUPS})"
ERR_CONSTRAINT_PARSER = "constraint parser error"


class VersionError(errors.HelmError, ValueError):
    """A version or constraint string cannot be parsed; the message is Masterminds' own."""


_DIGITS = frozenset("0123456789")
_ALLOWED = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789")
_GO_SPACE = gounicode.RE2_SPACE  # what the patterns and the plain-term path below skip
_WS = f"[{_GO_SPACE}]"
_IDENT = r"[0-9A-Za-z\-]++"
# The constraint patterns are compiled on first use, and only for a constraint that is not one
# plain term (:func:`_plain_term`): compiling them is milliseconds of a first run
# (bench/deferred.py, bench/compiles.py).


# A constraint's version: groups 1 major, 2 .minor, 3 .patch, 4 -prerelease (nine in all).
_XPART = r"[0-9|x|X|\*]++"
_CV = rf"v?({_XPART})(\.{_XPART})?(\.{_XPART})?(-({_IDENT}(\.{_IDENT})*))?(\+({_IDENT}(\.{_IDENT})*))?"
_OPS = r"=||!=|>|<|>=|=>|<=|=<|~|~>|\^"


_constraint_re = patterns.on_first_use(rf"{_WS}*({_OPS}){_WS}*({_CV}){_WS}*")
_find_constraint_re = patterns.on_first_use(rf"({_OPS}){_WS}*({_CV})")
_range_re = patterns.on_first_use(rf"{_WS}*+({_CV}){_WS}++-{_WS}++({_CV}){_WS}*")


# Same language as Go's validConstraintRegex, ``^(\s*OP\s*CV\s*)((?:\s+|,\s*)OP\s*CV\s*)*$``,
# written with possessive parts: Python backtracks, and Go's form would take exponential
# time on failing inputs with long runs of spaces. Whitespace runs are consumed whole and
# a version can only end where a separator or the end follows, so nothing is lost.
_valid_constraint_re = patterns.on_first_use(
    rf"{_WS}*+(?:{_OPS}){_WS}*+(?:{_CV})"
    rf"(?:(?:{_WS}*+,{_WS}*+|{_WS}++)(?:{_OPS}){_WS}*+(?:{_CV}))*+{_WS}*+")


_QUOTE_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}


def _go_quote(s: str) -> str:
    """Go's ``%q`` of a string (``strconv.Quote``), used in Masterminds' messages."""
    out = ['"']
    for ch in s:
        code = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch.isprintable():
            out.append(ch)
        elif ch in _QUOTE_ESCAPES:
            out.append(_QUOTE_ESCAPES[ch])
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\x{code:02x}")
        elif 0xD800 <= code <= 0xDFFF:
            out.append("\\ufffd")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


def _byte_len(s: str) -> int:
    return len(s.encode("utf-8", "surrogatepass"))


def _contains_only(s: str, allowed: frozenset[str]) -> bool:
    return all(ch in allowed for ch in s)


def _parse_uint(s: str, context: str = "") -> int:
    """``strconv.ParseUint(s, 10, 64)``; raises ``VersionError`` with strconv's text."""
    if not s or not _contains_only(s, _DIGITS):
        raise VersionError(f"{context}strconv.ParseUint: parsing {_go_quote(s)}: invalid syntax")
    value = int(s)
    if value > UINT64_MAX:
        raise VersionError(f"{context}strconv.ParseUint: parsing {_go_quote(s)}: value out of range")
    return value


def _validate_prerelease(pre: str) -> None:
    """SemVer identifiers: non-empty, ``[0-9A-Za-z-]``, numbers without leading zeros."""
    for part in pre.split("."):
        if not part:
            raise VersionError(ERR_INVALID_PRERELEASE)
        if _contains_only(part, _DIGITS):
            if len(part) > 1 and part[0] == "0":
                raise VersionError(ERR_SEGMENT_STARTS_ZERO)
        elif not _contains_only(part, _ALLOWED):
            raise VersionError(ERR_INVALID_PRERELEASE)


def _validate_metadata(meta: str) -> None:
    """Build metadata identifiers: non-empty, ``[0-9A-Za-z-]`` (leading zeros allowed)."""
    for part in meta.split("."):
        if not part or not _contains_only(part, _ALLOWED):
            raise VersionError(ERR_INVALID_METADATA)


def _identifiers(text: str) -> bool:
    """Whether ``text`` is dot-separated identifiers ``[0-9A-Za-z-]+``: Masterminds' prerelease and
    metadata syntax (``[0-9A-Za-z-]+(\\.[0-9A-Za-z-]+)*``)."""
    return all(part and _contains_only(part, _ALLOWED) for part in text.split("."))


def _loose_parts(text: str) -> tuple[tuple[str, str, str], str, str] | None:
    """The pieces of a version in ``NewVersion``'s syntax, ``v?N(.N)?(.N)?(-PRE)?(+META)?`` with
    ``N`` ASCII digits: ((major, minor, patch) with ``""`` for a missing one, prerelease,
    metadata), or ``None`` when ``text`` is not in that syntax. Neither the numbers nor the
    prerelease hold a ``+``, nor the numbers a ``-``: the first of each ends what precedes it.
    (String methods, not a pattern: every run parses versions, a pattern is compiled per process.)"""
    rest, plus, meta = text.removeprefix("v").partition("+")
    core, dash, pre = rest.partition("-")
    numbers = core.split(".")
    if len(numbers) > 3 or not all(n and _contains_only(n, _DIGITS) for n in numbers):
        return None
    if (dash and not _identifiers(pre)) or (plus and not _identifiers(meta)):
        return None
    numbers += [""] * (3 - len(numbers))
    return (numbers[0], numbers[1], numbers[2]), pre, meta


def _numeric_identifier(s: str) -> int | None:
    """The value of a prerelease identifier that Go's ParseUint accepts, else ``None``."""
    if s and _contains_only(s, _DIGITS):
        value = int(s)
        if value <= UINT64_MAX:
            return value
    return None


def _compare_pre_part(s: str, o: str) -> int:
    if s == o:
        return 0
    if not s:
        return -1
    if not o:
        return 1
    si, oi = _numeric_identifier(s), _numeric_identifier(o)
    if si is None and oi is None:
        return 1 if s > o else -1
    if oi is None:
        return -1  # a number sorts before a word
    if si is None:
        return 1
    return 1 if si > oi else -1


def _compare_prerelease(s: str, o: str) -> int:
    sparts, oparts = s.split("."), o.split(".")
    for i in range(max(len(sparts), len(oparts))):
        d = _compare_pre_part(sparts[i] if i < len(sparts) else "", oparts[i] if i < len(oparts) else "")
        if d:
            return d
    return 0


@functools.total_ordering
@records.record(frozen=True, eq=False)
class Version:
    """One semantic version. Equality and ordering follow :meth:`compare` (metadata ignored).

    Constructing directly is Go's ``semver.New``: nothing is validated and ``original``
    defaults to the canonical text. Use :meth:`parse` or :meth:`parse_strict` for input.
    """

    major: int
    minor: int
    patch: int
    prerelease: str = records.field(default="", kw_only=True)
    metadata: str = records.field(default="", kw_only=True)
    #: The text this version was parsed from (``v1.2`` stays ``v1.2``).
    original: str = records.field(default="", kw_only=True)

    def __post_init__(self) -> None:
        for name in ("major", "minor", "patch"):
            value = getattr(self, name)
            if not 0 <= value <= UINT64_MAX:
                raise VersionError(f"{name} version {value} is outside uint64")
        if not self.original:
            object.__setattr__(self, "original", str(self))

    @classmethod
    def parse(cls, text: str) -> Version:
        """Go's ``NewVersion``: lenient (``v`` prefix, ``1``, ``1.2``, leading zeros)."""
        if _byte_len(text) > MAX_VERSION_LEN:
            raise VersionError(ERR_VERSION_TOO_LONG)
        parts = _loose_parts(text)
        if parts is None:
            raise VersionError(ERR_INVALID_SEMVER)
        numbers, pre, meta = parts
        ctx = "error parsing version segment: "
        major, minor, patch = (_parse_uint(n, ctx) if n else 0 for n in numbers)
        if pre:
            _validate_prerelease(pre)
        if meta:
            _validate_metadata(meta)
        return cls(major, minor, patch, prerelease=pre, metadata=meta, original=text)

    @classmethod
    def parse_strict(cls, text: str) -> Version:
        """Go's ``StrictNewVersion``: only ``X.Y.Z[-pre][+meta]``, no ``v``, no leading zeros."""
        if not text:
            raise VersionError(ERR_EMPTY)
        if _byte_len(text) > MAX_VERSION_LEN:
            raise VersionError(ERR_VERSION_TOO_LONG)
        parts = text.split(".", 2)
        if len(parts) != 3:
            raise VersionError(ERR_INVALID_SEMVER)
        meta = pre = ""
        if "+" in parts[2]:
            parts[2], meta = parts[2].split("+", 1)
            _validate_metadata(meta)
        if "-" in parts[2]:
            parts[2], pre = parts[2].split("-", 1)
            _validate_prerelease(pre)
        for part in parts:
            if not _contains_only(part, _DIGITS):
                raise VersionError(ERR_INVALID_CHARACTERS)
            if len(part) > 1 and part[0] == "0":
                raise VersionError(ERR_SEGMENT_STARTS_ZERO)
        major, minor, patch = (_parse_uint(p) for p in parts)
        return cls(major, minor, patch, prerelease=pre, metadata=meta, original=text)

    def __str__(self) -> str:
        """Go's ``String()``: canonical ``1.2.3-pre+meta`` without any ``v``."""
        text = f"{self.major}.{self.minor}.{self.patch}"
        if self.prerelease:
            text += f"-{self.prerelease}"
        if self.metadata:
            text += f"+{self.metadata}"
        return text

    def compare(self, other: Version) -> int:
        """-1, 0 or 1 as ``self`` sorts before, with or after ``other`` (metadata ignored)."""
        for a, b in ((self.major, other.major), (self.minor, other.minor), (self.patch, other.patch)):
            if a != b:
                return -1 if a < b else 1
        ps, po = self.prerelease, other.prerelease
        if not ps and not po:
            return 0
        if not ps:
            return 1
        if not po:
            return -1
        return _compare_prerelease(ps, po)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return self.compare(other) == 0

    def __hash__(self) -> int:
        # Equal versions have equal numbers and prerelease text (parsing forbids "01").
        return hash((self.major, self.minor, self.patch, self.prerelease))

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return self.compare(other) < 0

    def _next(self, major: int, minor: int, patch: int, *, pre: str = "", meta: str = "") -> Version:
        """A derived version whose ``original`` keeps this one's ``v`` prefix, as Go does."""
        nxt = Version(major, minor, patch, prerelease=pre, metadata=meta)
        prefix = "v" if self.original.startswith("v") else ""
        return records.replace(nxt, original=prefix + str(nxt))

    def inc_patch(self) -> Version:
        """Next patch; a prerelease version just drops its prerelease (1.2.3-rc -> 1.2.3)."""
        if self.prerelease:
            return self._next(self.major, self.minor, self.patch)
        if self.patch == UINT64_MAX:
            raise VersionError("patch version increment would overflow uint64")
        return self._next(self.major, self.minor, self.patch + 1)

    def inc_minor(self) -> Version:
        """Next minor with patch 0, no prerelease or metadata."""
        if self.minor == UINT64_MAX:
            raise VersionError("minor version increment would overflow uint64")
        return self._next(self.major, self.minor + 1, 0)

    def inc_major(self) -> Version:
        """Next major with minor and patch 0, no prerelease or metadata."""
        if self.major == UINT64_MAX:
            raise VersionError("major version increment would overflow uint64")
        return self._next(self.major + 1, 0, 0)

    def with_prerelease(self, prerelease: str) -> Version:
        """Go's ``SetPrerelease`` (without the ``-``); ``""`` removes it."""
        if prerelease:
            _validate_prerelease(prerelease)
        return self._next(self.major, self.minor, self.patch, pre=prerelease, meta=self.metadata)

    def with_metadata(self, metadata: str) -> Version:
        """Go's ``SetMetadata`` (without the ``+``); ``""`` removes it."""
        if metadata:
            _validate_metadata(metadata)
        return self._next(self.major, self.minor, self.patch, pre=self.prerelease, meta=metadata)


# ---------------------------------------------------------------------------
# Constraints


@records.record(frozen=True)
class _Constraint:
    """One ``OP VERSION`` term. ``dirty`` marks a wildcard; ``orig`` is the text after OP."""

    op: str
    orig: str
    con: Version
    dirty: bool = False
    minor_dirty: bool = False
    patch_dirty: bool = False

    def __str__(self) -> str:
        return self.op + self.orig


def _is_x(part: str) -> bool:
    return part in ("x", "X", "*")


def _parse_constraint(text: str) -> _Constraint:
    m = _constraint_re().fullmatch(text)
    if m is None:
        raise VersionError(f"improper constraint: {_go_quote(text)}")
    return _constraint(m[1], m[2], m[3], m[4] or "", m[5] or "", m[6] or "")


def _constraint(op: str, orig: str, major: str, minor: str, patch: str, pre: str) -> _Constraint:
    """One term from its pieces: the operator, the version text, its major part, ``.minor`` and
    ``.patch`` (with their dots, ``""`` when missing) and ``-prerelease`` (with its dash)."""
    dirty = minor_dirty = patch_dirty = False
    ver = orig
    if _is_x(major):
        ver, dirty = f"0.0.0{pre}", True
    elif not minor or _is_x(minor[1:]):
        ver, dirty, minor_dirty = f"{major}.0.0{pre}", True, True
    elif not patch or _is_x(patch[1:]):
        ver, dirty, patch_dirty = f"{major}{minor}.0{pre}", True, True
    try:
        con = Version.parse(ver)
    except VersionError:
        raise VersionError(ERR_CONSTRAINT_PARSER) from None
    return _Constraint(op, orig, con, dirty, minor_dirty, patch_dirty)


def _parsed_groups(text: str) -> tuple[tuple[_Constraint, ...], ...]:
    """Go's ``NewConstraint`` by its patterns: ranges rewritten, ``||`` groups of terms."""
    segments = _rewrite_ranges(text).split("||")
    if len(segments) > MAX_CONSTRAINT_GROUPS:
        raise VersionError(ERR_TOO_MANY_GROUPS)
    groups = []
    for segment in segments:
        if _valid_constraint_re().fullmatch(segment) is None:
            raise VersionError(f"improper constraint: {_go_quote(segment)}")
        terms = [m[0] for m in _find_constraint_re().finditer(segment)]
        groups.append(tuple(_parse_constraint(term) for term in terms))
    return tuple(groups)


_OPERATOR_CHARS = frozenset("=!<>~^")
_OPERATORS = frozenset(("", "=", "!=", ">", "<", ">=", "=>", "<=", "=<", "~", "~>", "^"))
_WILDCARDS = frozenset(("x", "X", "*"))
Pieces: TypeAlias = "tuple[str, str, str, str, str, str]"


def _plain_terms(text: str) -> list[Pieces] | None:
    """The pieces (:func:`_constraint`'s arguments) of a constraint whose ``||`` groups are each
    one plain term, or ``None`` for any other constraint (:func:`_parsed_groups` answers it).

    Nearly every constraint a chart names is one term (``>=1.19.0-0``, ``~1.2``, ``8.4.*``), and
    the patterns that parse the general case take milliseconds to compile. A plain term's
    whitespace is only around it and after its operator, so no ``A - B`` range is rewritten
    (a range needs whitespace before its ``-``), and the patterns find that one term with the
    same operator (the longest run of operator characters: a shorter one is followed by one
    that begins no version) and the same version text. tests/test_versions.py compares both
    paths over generated constraints."""
    segments = text.split("||")
    if len(segments) > MAX_CONSTRAINT_GROUPS:
        return None
    terms = []
    for segment in segments:
        term = _plain_term(segment.strip(_GO_SPACE))
        if term is None:
            return None
        terms.append(term)
    return terms


def _plain_term(term: str) -> Pieces | None:
    """``OP`` then Go spaces then a version ``v?P(.P)?(.P)?(-PRE)?(+META)?`` (``P`` ASCII digits or
    one wildcard), as :func:`_constraint`'s pieces; ``None`` for anything else."""
    end = 0
    while end < len(term) and term[end] in _OPERATOR_CHARS:
        end += 1
    op, orig = term[:end], term[end:].lstrip(_GO_SPACE)
    if op not in _OPERATORS:
        return None
    rest, plus, meta = orig.removeprefix("v").partition("+")
    core, dash, pre = rest.partition("-")
    parts = core.split(".")
    if len(parts) > 3 or not all(p in _WILDCARDS or (p and _contains_only(p, _DIGITS)) for p in parts):
        return None
    if (dash and not _identifiers(pre)) or (plus and not _identifiers(meta)):
        return None
    minor = "." + parts[1] if len(parts) > 1 else ""
    patch = "." + parts[2] if len(parts) > 2 else ""
    return op, orig, parts[0], minor, patch, dash + pre


def _rewrite_ranges(text: str) -> str:
    """``A - B`` becomes ``>= A, <= B ``; each match replaces its first occurrence, as Go does."""
    out = text
    for m in _range_re().finditer(text):
        out = out.replace(m[0], f">= {m[1]}, <= {m[11]} ", 1)
    return out


def _prerelease_msg(v: Version) -> str:
    return f"{_go_quote(str(v))} is a prerelease version and the constraint is only looking for release versions"


def _msg(v: Version, text: str, c: _Constraint) -> str:
    return f"{_go_quote(str(v))} {text} {_go_quote(c.orig)}"


# Each check returns None when ``v`` satisfies ``c``, else Masterminds' message.
def _check_not_equal(v: Version, c: _Constraint) -> str | None:
    if c.dirty:
        con = c.con
        if con.major != v.major:
            return None
        if con.minor != v.minor and not c.minor_dirty:
            return None
        if c.minor_dirty:
            return _msg(v, "is equal to", c)
        if con.patch != v.patch and not c.patch_dirty:
            return None
        if c.patch_dirty:
            if (v.prerelease or con.prerelease) and _compare_prerelease(v.prerelease, con.prerelease):
                return None
            return _msg(v, "is equal to", c)
    return _msg(v, "is equal to", c) if v == c.con else None


def _check_greater_than(v: Version, c: _Constraint) -> str | None:
    fail = _msg(v, "is less than or equal to", c)
    if c.dirty:
        if v.major > c.con.major:
            return None
        if v.major < c.con.major or c.minor_dirty:
            return fail
        if c.patch_dirty:
            return None if v.minor > c.con.minor else fail
    return None if v.compare(c.con) == 1 else fail


def _check_less_than(v: Version, c: _Constraint) -> str | None:
    return None if v.compare(c.con) < 0 else _msg(v, "is greater than or equal to", c)


def _check_greater_equal(v: Version, c: _Constraint) -> str | None:
    return None if v.compare(c.con) >= 0 else _msg(v, "is less than", c)


def _check_less_equal(v: Version, c: _Constraint) -> str | None:
    fail = _msg(v, "is greater than", c)
    if not c.dirty:
        return None if v.compare(c.con) <= 0 else fail
    if v.major > c.con.major:
        return fail
    if v.major == c.con.major and v.minor > c.con.minor and not c.minor_dirty:
        return fail
    return None


def _check_tilde(v: Version, c: _Constraint) -> str | None:
    con = c.con
    if v < con:
        return _msg(v, "is less than", c)
    if (con.major, con.minor, con.patch) == (0, 0, 0) and not c.minor_dirty and not c.patch_dirty:
        return None  # ~0.0.0 and ~* admit everything
    if v.major != con.major:
        return _msg(v, "does not have same major version as", c)
    if v.minor != con.minor and not c.minor_dirty:
        return _msg(v, "does not have same major and minor version as", c)
    return None


def _check_tilde_or_equal(v: Version, c: _Constraint) -> str | None:
    if c.dirty:
        return _check_tilde(v, c)
    return None if v == c.con else _msg(v, "is not equal to", c)


def _check_caret(v: Version, c: _Constraint) -> str | None:
    con = c.con
    if v < con:
        return _msg(v, "is less than", c)
    if con.major > 0 or c.minor_dirty:
        return None if v.major == con.major else _msg(v, "does not have same major version as", c)
    if v.major > 0:
        return _msg(v, "does not have same major version as", c)
    if con.minor > 0 or c.patch_dirty:
        if v.minor == con.minor:
            return None
        return _msg(v, "does not have same minor version as", c) + (
            ". Expected minor versions to match when constraint major version is 0"
        )
    if v.minor > 0:
        return _msg(v, "does not have same minor version as", c)
    if con.patch == v.patch:
        return None
    return _msg(v, "does not equal", c) + (
        ". Expect version and constraint to equal when major and minor versions are 0"
    )


_CHECKS: dict[str, Callable[[Version, _Constraint], str | None]] = {
    "": _check_tilde_or_equal,
    "=": _check_tilde_or_equal,
    "!=": _check_not_equal,
    ">": _check_greater_than,
    "<": _check_less_than,
    ">=": _check_greater_equal,
    "=>": _check_greater_equal,
    "<=": _check_less_equal,
    "=<": _check_less_equal,
    "~": _check_tilde,
    "~>": _check_tilde,
    "^": _check_caret,
}


def _check_one(v: Version, c: _Constraint, include_pre: bool) -> str | None:
    if v.prerelease and not include_pre:
        return _prerelease_msg(v)
    return _CHECKS[c.op](v, c)


@records.record(frozen=True)
class Constraints:
    """A parsed range: OR of groups, each an AND of terms (Go's ``semver.Constraints``).

    ``include_prerelease`` (Go's ``IncludePrerelease``) lets every group admit
    prerelease versions; without it only groups naming a prerelease do.
    """

    groups: tuple[tuple[_Constraint, ...], ...]
    include_prerelease: bool = False

    @classmethod
    def parse(cls, text: str, *, include_prerelease: bool = False) -> Constraints:
        """Go's ``NewConstraint``; at most 512 bytes and 32 ``||`` groups.

        A range of plain terms is told by string methods (faster than reading an entry back,
        and a first run writes none). With a disk memo active, any other range parsed by an
        earlier process is read back: the checking pattern alone takes milliseconds to compile.
        """
        if _byte_len(text) > MAX_CONSTRAINT_LEN:
            raise VersionError(ERR_CONSTRAINT_TOO_LONG)
        plain = _plain_terms(text)
        if plain is not None:
            return cls(tuple((_constraint(*pieces),) for pieces in plain), include_prerelease)
        disk = memo.active()
        if disk is None:
            return cls._parse(text, include_prerelease)
        key = cachekeys.hasher(f"{_code_digest()}\0{include_prerelease}\0{text}".encode(
            "utf-8", "surrogatepass")).hexdigest()
        return disk.pickled(CONSTRAINTS_MEMO, key, lambda: cls._parse(text, include_prerelease))

    @classmethod
    def _parse(cls, text: str, include_prerelease: bool) -> Constraints:
        """A range with more than plain terms, by Go's patterns."""
        return cls(_parsed_groups(text), include_prerelease)

    def _admits_prerelease(self, group: tuple[_Constraint, ...]) -> bool:
        return self.include_prerelease or any(c.con.prerelease for c in group)

    def check(self, version: Version) -> bool:
        """Whether ``version`` satisfies at least one group (Go's ``Check``)."""
        for group in self.groups:
            include_pre = self._admits_prerelease(group)
            if all(_check_one(version, c, include_pre) is None for c in group):
                return True
        return False

    def validate(self, version: Version) -> tuple[bool, list[str]]:
        """Go's ``Validate``: ``(True, [])`` or ``(False, reasons)``.

        Reasons list every failing term of every group in order; the "is a prerelease
        version" reason appears once however many groups refuse prereleases.
        """
        reasons: list[str] = []
        prerelease_reported = False
        for group in self.groups:
            include_pre = self._admits_prerelease(group)
            ok = True
            for c in group:
                if version.prerelease and not include_pre:
                    if not prerelease_reported:
                        reasons.append(_prerelease_msg(version))
                        prerelease_reported = True
                    ok = False
                    continue
                reason = _CHECKS[c.op](version, c)
                if reason is not None:
                    reasons.append(reason)
                    ok = False
            if ok:
                return True, []
        return False, reasons

    def __str__(self) -> str:
        """Go's ``String()``: terms joined by spaces, groups by `` || `` (``>=1.2 <2``)."""
        return " || ".join(" ".join(str(c) for c in group) for group in self.groups)


#: Parsed constraints in the disk memo (:meth:`Constraints.parse`).
CONSTRAINTS_MEMO = "semver-constraints"


@functools.cache
def _code_digest() -> str:
    """This module's code and the record classes' (they are pickled), and the Python version."""
    return memo.code_digest(__file__, records.__file__) + sys.version


def is_compatible_range(constraint: str, version: str) -> bool:
    """Helm's ``chartutil.IsCompatibleRange``: false when either text fails to parse."""
    try:
        return Constraints.parse(constraint).check(Version.parse(version))
    except VersionError:
        return False
