"""``semver`` and ``semverCompare``: Masterminds/semver v3.5.0 (the version Helm 3.22 links).

Why: charts gate API versions on ``semverCompare ">=1.21-0" .Capabilities.KubeVersion.GitVersion``.
The rules live in :mod:`helm_core.golib.versions` (shared with dependency ranges and chart
repositories); this module only exposes them to templates: ``semver`` returns a
``*semver.Version`` object whose Go methods templates may call, and parse errors
become Go's function errors.
"""
from __future__ import annotations

import functools

from helm_core.golib import versions
from helm_core.golib.gotypes import FuncError, GoObject, go_type_name, signature

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar

#: Parsed constraints and compared versions kept per process.
CONSTRAINT_CACHE_SIZE = 512


class Version(GoObject):
    """Masterminds ``*semver.Version`` (``pointer=False`` is the value type ``semver.Version``)."""

    go_type: ClassVar[str] = "*semver.Version"
    _VALUE_METHODS: ClassVar[frozenset[str]] = frozenset(
        {"String", "Major", "Minor", "Patch", "Prerelease", "Metadata", "IncPatch", "IncMinor", "IncMajor",
         "SetPrerelease", "SetMetadata", "MarshalJSON", "MarshalText"})
    go_members: ClassVar[frozenset[str]] = _VALUE_METHODS | {
        "Original", "LessThan", "LessThanEqual", "GreaterThan", "GreaterThanEqual", "Equal", "Compare"}

    def __init__(self, version: versions.Version, *, pointer: bool = True) -> None:
        self.version = version
        if not pointer:
            self.go_type = "semver.Version"  # type: ignore[misc]
            self.go_members = self._VALUE_METHODS  # type: ignore[misc]

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Version) and self.go_type == other.go_type
                and self._key() == other._key())

    def __hash__(self) -> int:
        return hash(self._key())

    def _key(self) -> tuple[Any, ...]:
        v = self.version
        return (v.major, v.minor, v.patch, v.prerelease, v.metadata, v.original)

    def __str__(self) -> str:
        return str(self.version)

    def __repr__(self) -> str:
        return f"Version({self.version.original!r})"

    def go_json_value(self) -> str:
        """``MarshalJSON``: the canonical string."""
        return str(self.version)

    @signature()
    def String(self) -> str:  # noqa: N802 - Go method names
        return str(self.version)

    @signature()
    def Original(self) -> str:  # noqa: N802
        return self.version.original

    @signature()
    def Major(self) -> int:  # noqa: N802
        return self.version.major

    @signature()
    def Minor(self) -> int:  # noqa: N802
        return self.version.minor

    @signature()
    def Patch(self) -> int:  # noqa: N802
        return self.version.patch

    @signature()
    def Prerelease(self) -> str:  # noqa: N802
        return self.version.prerelease

    @signature()
    def Metadata(self) -> str:  # noqa: N802
        return self.version.metadata

    @signature()
    def MarshalJSON(self) -> bytes:  # noqa: N802
        return f'"{self.version}"'.encode()

    @signature()
    def MarshalText(self) -> bytes:  # noqa: N802
        return str(self.version).encode()

    def _value(self, make: Any) -> Version:
        try:
            return Version(make(), pointer=False)
        except versions.VersionError as exc:
            raise FuncError(str(exc)) from None

    @signature()
    def IncPatch(self) -> Version:  # noqa: N802
        return self._value(self.version.inc_patch)

    @signature()
    def IncMinor(self) -> Version:  # noqa: N802
        return self._value(self.version.inc_minor)

    @signature()
    def IncMajor(self) -> Version:  # noqa: N802
        return self._value(self.version.inc_major)

    @signature("string")
    def SetPrerelease(self, pre: str) -> Version:  # noqa: N802
        return self._value(lambda: self.version.with_prerelease(pre))

    @signature("string")
    def SetMetadata(self, metadata: str) -> Version:  # noqa: N802
        return self._value(lambda: self.version.with_metadata(metadata))

    def _other(self, o: Any) -> versions.Version:
        if not isinstance(o, Version) or o.go_type != Version.go_type:
            raise FuncError(f"wrong type for value; expected *semver.Version; got {go_type_name(o)}")
        return o.version

    @signature("*semver.Version")
    def Compare(self, o: Any) -> int:  # noqa: N802
        return self.version.compare(self._other(o))

    @signature("*semver.Version")
    def LessThan(self, o: Any) -> bool:  # noqa: N802
        return self.version.compare(self._other(o)) < 0

    @signature("*semver.Version")
    def LessThanEqual(self, o: Any) -> bool:  # noqa: N802
        return self.version.compare(self._other(o)) <= 0

    @signature("*semver.Version")
    def GreaterThan(self, o: Any) -> bool:  # noqa: N802
        return self.version.compare(self._other(o)) > 0

    @signature("*semver.Version")
    def GreaterThanEqual(self, o: Any) -> bool:  # noqa: N802
        return self.version.compare(self._other(o)) >= 0

    @signature("*semver.Version")
    def Equal(self, o: Any) -> bool:  # noqa: N802
        return self.version.compare(self._other(o)) == 0


@functools.lru_cache(maxsize=CONSTRAINT_CACHE_SIZE)
def _constraints(text: str) -> versions.Constraints:
    return versions.Constraints.parse(text)


@functools.lru_cache(maxsize=CONSTRAINT_CACHE_SIZE)
def _version(text: str) -> versions.Version:
    return versions.Version.parse(text)


def new_version(text: str) -> Version:
    """``semver.NewVersion`` as a template value; errors are Go's."""
    try:
        return Version(_version(text))
    except versions.VersionError as exc:
        raise FuncError(str(exc)) from None


@signature("string")
def semver(version: str) -> Version:
    """``semver``: parse a version (errors as Masterminds reports them)."""
    return new_version(version)


@signature("string", "string")
def semver_compare(constraint: str, version: str) -> bool:
    """``semverCompare CONSTRAINT VERSION``."""
    try:
        return _constraints(constraint).check(_version(version))
    except versions.VersionError as exc:
        raise FuncError(str(exc)) from None


FUNCS = {"semver": semver, "semverCompare": semver_compare}
