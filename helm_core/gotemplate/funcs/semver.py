"""``semver`` and ``semverCompare`` with Masterminds/semver v3.5.0 rules (the version
Helm 3.22 links).

Why: charts gate API versions on ``semverCompare ">=1.21-0" .Capabilities.KubeVersion.GitVersion``.
Rules kept: versions are coerced (``v1.2`` -> 1.2.0, ``1.02`` accepted); constraints
support ``=``, ``!=``, ``>``, ``<``, ``>=``/``=>``, ``<=``/``=<``, ``~``/``~>``, ``^``,
wildcards ``x X *``, hyphen ranges, ``,``/space for AND and ``||`` for OR; a
pre-release version only satisfies a group that itself names a pre-release.
``semver`` returns a :class:`Version` (``*semver.Version``) whose methods templates call.
"""
from __future__ import annotations

import functools
import re
from typing import Any, Callable, ClassVar

from helm_core.gotemplate import gofmt
from helm_core.gotemplate.gotypes import FuncError, GoObject, go_type_name, signature

MAX_VERSION_LEN = 256
MAX_CONSTRAINT_LEN = 512
MAX_CONSTRAINT_GROUPS = 32
#: Parsed constraints and compared versions kept per process.
CONSTRAINT_CACHE_SIZE = 512
UINT64_MAX = (1 << 64) - 1

_LOOSE = re.compile(
    r"v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?"
    r"(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
    r"(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
)
_CV = (r"v?([0-9|x|X|\*]+)(\.[0-9|x|X|\*]+)?(\.[0-9|x|X|\*]+)?"
       r"(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
       r"(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?")
_OPS = r"=||!=|>|<|>=|=>|<=|=<|~|~>|\^"
_SP = r"[\t\n\f\r ]"
_CONSTRAINT = re.compile(rf"^{_SP}*({_OPS}){_SP}*({_CV}){_SP}*$")
_RANGE = re.compile(rf"{_SP}*({_CV}){_SP}+-{_SP}+({_CV}){_SP}*")
_FIND = re.compile(rf"({_OPS}){_SP}*({_CV})")
_VALID = re.compile(rf"^({_SP}*({_OPS}){_SP}*({_CV}){_SP}*)((?:{_SP}+|,{_SP}*)({_OPS}){_SP}*({_CV}){_SP}*)*$")
_ALLOWED = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789")

ERR_INVALID = "invalid semantic version"
ERR_PRERELEASE = "invalid prerelease string"
ERR_METADATA = "invalid metadata string"
ERR_ZERO = "version segment starts with 0"


def _validate_prerelease(p: str) -> None:
    for part in p.split("."):
        if part == "":
            raise FuncError(ERR_PRERELEASE)
        if part.isdigit() and part.isascii():
            if len(part) > 1 and part[0] == "0":
                raise FuncError(ERR_ZERO)
        elif not set(part) <= _ALLOWED:
            raise FuncError(ERR_PRERELEASE)


def _validate_metadata(m: str) -> None:
    for part in m.split("."):
        if part == "" or not set(part) <= _ALLOWED:
            raise FuncError(ERR_METADATA)


def _segment(text: str) -> int:
    value = int(text)
    if value > UINT64_MAX:
        raise FuncError(f'error parsing version segment: strconv.ParseUint: parsing "{text}": value out of range')
    return value


class Version(GoObject):
    """Masterminds ``*semver.Version`` (``pointer=False`` is the value type ``semver.Version``)."""

    go_type: ClassVar[str] = "*semver.Version"
    _VALUE_METHODS: ClassVar[frozenset[str]] = frozenset(
        {"String", "Major", "Minor", "Patch", "Prerelease", "Metadata", "IncPatch", "IncMinor", "IncMajor",
         "SetPrerelease", "SetMetadata", "MarshalJSON", "MarshalText"})
    go_members: ClassVar[frozenset[str]] = _VALUE_METHODS | {
        "Original", "LessThan", "LessThanEqual", "GreaterThan", "GreaterThanEqual", "Equal", "Compare"}

    def __init__(self, major: int, minor: int, patch: int, pre: str, metadata: str, original: str,
                 *, pointer: bool = True) -> None:
        self.major, self.minor, self.patch = major, minor, patch
        self.pre, self.metadata, self.original = pre, metadata, original
        if not pointer:
            self.go_type = "semver.Version"  # type: ignore[misc]
            self.go_members = self._VALUE_METHODS  # type: ignore[misc]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Version) and self._key() == other._key() and self.go_type == other.go_type

    def __hash__(self) -> int:
        return hash(self._key())

    def _key(self) -> tuple[Any, ...]:
        return (self.major, self.minor, self.patch, self.pre, self.metadata, self.original)

    def __str__(self) -> str:
        return self.String()

    def __repr__(self) -> str:
        return f"Version({self.original!r})"

    def go_json_value(self) -> str:
        """``MarshalJSON``: the canonical string."""
        return self.String()

    @signature()
    def String(self) -> str:
        s = f"{self.major}.{self.minor}.{self.patch}"
        if self.pre:
            s += "-" + self.pre
        if self.metadata:
            s += "+" + self.metadata
        return s

    @signature()
    def Original(self) -> str:
        return self.original

    @signature()
    def Major(self) -> int:
        return self.major

    @signature()
    def Minor(self) -> int:
        return self.minor

    @signature()
    def Patch(self) -> int:
        return self.patch

    @signature()
    def Prerelease(self) -> str:
        return self.pre

    @signature()
    def Metadata(self) -> str:
        return self.metadata

    @signature()
    def MarshalJSON(self) -> bytes:
        return ('"' + self.String() + '"').encode()

    @signature()
    def MarshalText(self) -> bytes:
        return self.String().encode()

    def _next(self, major: int, minor: int, patch: int, pre: str, metadata: str) -> Version:
        v = Version(major, minor, patch, pre, metadata, "", pointer=False)
        v.original = ("v" if self.original[:1] == "v" else "") + v.String()
        return v

    @signature()
    def IncPatch(self) -> Version:
        if self.pre:
            return self._next(self.major, self.minor, self.patch, "", "")
        if self.patch == UINT64_MAX:
            raise FuncError("patch version increment would overflow uint64")
        return self._next(self.major, self.minor, self.patch + 1, "", "")

    @signature()
    def IncMinor(self) -> Version:
        if self.minor == UINT64_MAX:
            raise FuncError("minor version increment would overflow uint64")
        return self._next(self.major, self.minor + 1, 0, "", "")

    @signature()
    def IncMajor(self) -> Version:
        if self.major == UINT64_MAX:
            raise FuncError("major version increment would overflow uint64")
        return self._next(self.major + 1, 0, 0, "", "")

    @signature("string")
    def SetPrerelease(self, pre: str) -> Version:
        if pre:
            _validate_prerelease(pre)
        return self._next(self.major, self.minor, self.patch, pre, self.metadata)

    @signature("string")
    def SetMetadata(self, metadata: str) -> Version:
        if metadata:
            _validate_metadata(metadata)
        return self._next(self.major, self.minor, self.patch, self.pre, metadata)

    def compare(self, o: Version) -> int:
        """Precedence: -1, 0 or 1 (metadata ignored)."""
        for a, b in ((self.major, o.major), (self.minor, o.minor), (self.patch, o.patch)):
            if a != b:
                return -1 if a < b else 1
        if not self.pre and not o.pre:
            return 0
        if not self.pre:
            return 1
        if not o.pre:
            return -1
        return compare_prerelease(self.pre, o.pre)

    def _other(self, o: Any) -> Version:
        if not isinstance(o, Version) or o.go_type != Version.go_type:
            raise FuncError(f"wrong type for value; expected *semver.Version; got {go_type_name(o)}")
        return o

    @signature("*semver.Version")
    def Compare(self, o: Any) -> int:
        return self.compare(self._other(o))

    @signature("*semver.Version")
    def LessThan(self, o: Any) -> bool:
        return self.compare(self._other(o)) < 0

    @signature("*semver.Version")
    def LessThanEqual(self, o: Any) -> bool:
        return self.compare(self._other(o)) <= 0

    @signature("*semver.Version")
    def GreaterThan(self, o: Any) -> bool:
        return self.compare(self._other(o)) > 0

    @signature("*semver.Version")
    def GreaterThanEqual(self, o: Any) -> bool:
        return self.compare(self._other(o)) >= 0

    @signature("*semver.Version")
    def Equal(self, o: Any) -> bool:
        return self.compare(self._other(o)) == 0


def _pre_part(s: str, o: str) -> int:
    if s == o:
        return 0
    if s == "":
        return -1
    if o == "":
        return 1
    s_num = s.isdigit() and s.isascii() and int(s) <= UINT64_MAX
    o_num = o.isdigit() and o.isascii() and int(o) <= UINT64_MAX
    if not s_num and not o_num:
        return 1 if s.encode() > o.encode() else -1
    if not o_num:
        return -1
    if not s_num:
        return 1
    return 1 if int(s) > int(o) else -1


def compare_prerelease(a: str, b: str) -> int:
    """Masterminds comparePrerelease (dot parts; numeric parts rank below alphanumeric)."""
    sp, op = a.split("."), b.split(".")
    for i in range(max(len(sp), len(op))):
        d = _pre_part(sp[i] if i < len(sp) else "", op[i] if i < len(op) else "")
        if d:
            return d
    return 0


def new_version(v: str) -> Version:
    """Masterminds ``NewVersion`` (coercing); raises FuncError with its error text."""
    if len(v.encode()) > MAX_VERSION_LEN:
        raise FuncError(f"version string is too long (max {MAX_VERSION_LEN} bytes)")
    m = _LOOSE.fullmatch(v)
    if m is None or not v.isascii():
        raise FuncError(ERR_INVALID)
    major = _segment(m.group(1))
    minor = _segment(m.group(2)[1:]) if m.group(2) else 0
    patch = _segment(m.group(3)[1:]) if m.group(3) else 0
    pre, meta = m.group(5) or "", m.group(8) or ""
    if pre:
        _validate_prerelease(pre)
    if meta:
        _validate_metadata(meta)
    return Version(major, minor, patch, pre, meta, v)


def _is_x(s: str) -> bool:
    return s in ("x", "X", "*")


class _Constraint:
    def __init__(self, text: str) -> None:
        m = _CONSTRAINT.match(text)
        if m is None:
            raise FuncError(f"improper constraint: {_go_q(text)}")
        self.op, self.orig = m.group(1), m.group(2)
        major, minor, patch, pre = m.group(3), m.group(4) or "", m.group(5) or "", m.group(6) or ""
        self.dirty = self.minor_dirty = self.patch_dirty = False
        ver = self.orig
        if _is_x(major) or major == "":
            ver, self.dirty = "0.0.0" + pre, True
        elif _is_x(minor[1:]) or minor == "":
            ver, self.dirty, self.minor_dirty = f"{major}.0.0{pre}", True, True
        elif _is_x(patch[1:]) or patch == "":
            ver, self.dirty, self.patch_dirty = f"{major}{minor}.0{pre}", True, True
        try:
            self.con = new_version(ver)
        except FuncError:
            raise FuncError("constraint parser error") from None

    def check(self, v: Version, include_pre: bool) -> bool:
        if v.pre and not include_pre:
            return False
        return _OP_FUNCS[self.op](self, v)


def _go_q(s: str) -> str:
    return gofmt.quote(s)


def _not_equal(c: _Constraint, v: Version) -> bool:
    if c.dirty:
        if c.con.major != v.major:
            return True
        if c.con.minor != v.minor and not c.minor_dirty:
            return True
        if c.minor_dirty:
            return False
        if c.con.patch != v.patch and not c.patch_dirty:
            return True
        if c.patch_dirty:
            if v.pre or c.con.pre:
                return compare_prerelease(v.pre, c.con.pre) != 0
            return False
    return v.compare(c.con) != 0


def _greater(c: _Constraint, v: Version) -> bool:
    if not c.dirty:
        return v.compare(c.con) == 1
    if v.major != c.con.major:
        return v.major > c.con.major
    if c.minor_dirty:
        return False
    if c.patch_dirty:
        return v.minor > c.con.minor
    return v.compare(c.con) == 1


def _less_equal(c: _Constraint, v: Version) -> bool:
    if not c.dirty:
        return v.compare(c.con) <= 0
    if v.major > c.con.major:
        return False
    return not (v.major == c.con.major and v.minor > c.con.minor and not c.minor_dirty)


def _tilde(c: _Constraint, v: Version) -> bool:
    if v.compare(c.con) < 0:
        return False
    if c.con.major == 0 and c.con.minor == 0 and c.con.patch == 0 and not c.minor_dirty and not c.patch_dirty:
        return True
    if v.major != c.con.major:
        return False
    return not (v.minor != c.con.minor and not c.minor_dirty)


def _tilde_or_equal(c: _Constraint, v: Version) -> bool:
    if c.dirty:
        return _tilde(c, v)
    return v.compare(c.con) == 0


def _caret(c: _Constraint, v: Version) -> bool:
    if v.compare(c.con) < 0:
        return False
    if c.con.major > 0 or c.minor_dirty:
        return v.major == c.con.major
    if v.major > 0:
        return False
    if c.con.minor > 0 or c.patch_dirty:
        return v.minor == c.con.minor
    if v.minor > 0:
        return False
    return c.con.patch == v.patch


_OP_FUNCS: dict[str, Callable[[_Constraint, Version], bool]] = {
    "": _tilde_or_equal, "=": _tilde_or_equal, "!=": _not_equal, ">": _greater,
    "<": lambda c, v: v.compare(c.con) < 0, ">=": lambda c, v: v.compare(c.con) >= 0,
    "=>": lambda c, v: v.compare(c.con) >= 0, "<=": _less_equal, "=<": _less_equal,
    "~": _tilde, "~>": _tilde, "^": _caret,
}


def _rewrite_range(c: str) -> str:
    out = c
    for m in _RANGE.finditer(c):
        out = out.replace(m.group(0), f">= {m.group(1)}, <= {m.group(11)} ", 1)
    return out


@functools.lru_cache(maxsize=CONSTRAINT_CACHE_SIZE)
def parse_constraints(text: str) -> tuple[tuple[tuple[_Constraint, ...], bool], ...]:
    """Masterminds ``NewConstraint``: OR groups of AND constraints, each with its has-prerelease flag.

    Cached: charts repeat the same few constraints (``>=1.21-0``) on every render.
    """
    if len(text.encode()) > MAX_CONSTRAINT_LEN:
        raise FuncError(f"constraint string is too long (max {MAX_CONSTRAINT_LEN} bytes)")
    ors = _rewrite_range(text).split("||")
    if len(ors) > MAX_CONSTRAINT_GROUPS:
        raise FuncError(f"too many constraint groups (max {MAX_CONSTRAINT_GROUPS})")
    groups = []
    for group in ors:
        if not _VALID.match(group):
            raise FuncError(f"improper constraint: {_go_q(group)}")
        parts = [m.group(0) for m in _FIND.finditer(group)] or [group]
        cons = tuple(_Constraint(p) if p else _Constraint("*") for p in parts)
        groups.append((cons, any(c.con.pre for c in cons)))
    return tuple(groups)


@functools.lru_cache(maxsize=CONSTRAINT_CACHE_SIZE)
def _cached_version(version: str) -> Version:
    """Versions compared by ``semverCompare`` (never handed to templates, so sharing is safe)."""
    return new_version(version)


@signature("string")
def semver(version: str) -> Version:
    """``semver``: parse a version (errors as Masterminds reports them)."""
    return new_version(version)


@signature("string", "string")
def semver_compare(constraint: str, version: str) -> bool:
    """``semverCompare CONSTRAINT VERSION``."""
    groups = parse_constraints(constraint)
    v = _cached_version(version)
    return any(all(c.check(v, has_pre) for c in cons) for cons, has_pre in groups)


FUNCS = {"semver": semver, "semverCompare": semver_compare}
