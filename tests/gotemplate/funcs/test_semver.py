"""Masterminds semver v3.5.0 versions and constraints (the version Helm 3.22 links)."""
from __future__ import annotations

import pytest

from helm_core.gotemplate.funcs import semver as sv
from helm_core.golib.gotypes import FuncError


def test_semver_exposes_fields_as_methods() -> None:
    v = sv.semver("v1.2.3-beta.1+build")
    assert (v.Major(), v.Minor(), v.Patch(), v.Prerelease(), v.Metadata(), v.Original(), v.String()) == (
        1, 2, 3, "beta.1", "build", "v1.2.3-beta.1+build", "1.2.3-beta.1+build")
    assert v.go_type == "*semver.Version" and str(v) == "1.2.3-beta.1+build"


def test_increments_return_value_type_without_pointer_methods() -> None:
    nxt = sv.semver("v1.2.3-rc.1").IncMinor()
    assert (str(nxt), nxt.Original(), nxt.go_type) == ("1.3.0", "v1.3.0", "semver.Version")
    with pytest.raises(KeyError):
        nxt.go_field("Original")
    assert str(sv.semver("1.2.3-rc.1").IncPatch()) == "1.2.3"
    assert str(sv.semver("1.2.3").IncMajor()) == "2.0.0"


def test_comparison_methods() -> None:
    v = sv.semver("1.2.3")
    assert v.LessThan(sv.semver("2.0.0")) and v.Compare(sv.semver("1.2.3-alpha")) == 1
    assert v.Equal(sv.semver("v1.2.3+meta")) and not v.GreaterThan(sv.semver("1.2.3"))


COERCE = [("v_prefix", "v1.2", "1.2.0"), ("major_only", "3", "3.0.0"), ("leading_zero", "1.02.3", "1.2.3")]


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in COERCE], ids=[c[0] for c in COERCE])
def test_versions_are_coerced(text: str, expected: str) -> None:
    assert str(sv.semver(text)) == expected


PRERELEASE_ORDER = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
                    "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0"]


def test_prerelease_precedence_follows_semver_spec() -> None:
    versions = [sv.semver(v) for v in PRERELEASE_ORDER]
    assert all(a.Compare(b) == -1 for a, b in zip(versions, versions[1:]))


CONSTRAINTS = [
    ("kube_prerelease_floor", ">=1.21-0", "v1.25.3+k3s1", True),
    ("kube_prerelease_floor_matches_pre", ">=1.21-0", "1.22.0-rc.1", True),
    ("release_constraint_rejects_pre", ">=1.21", "1.22.0-rc.1", False),
    ("caret_major", "^1.2", "1.9.0", True),
    ("caret_major_next", "^1.2", "2.0.0", False),
    ("caret_zero_minor", "^0.2.3", "0.2.9", True),
    ("caret_zero_minor_next", "^0.2.3", "0.3.0", False),
    ("caret_zero_zero", "^0.0.3", "0.0.4", False),
    ("tilde_minor", "~1.2.3", "1.2.9", True),
    ("tilde_minor_next", "~1.2.3", "1.3.0", False),
    ("tilde_major_only", "~1", "1.9.9", True),
    ("hyphen_range_inclusive", "1.2 - 1.4", "1.4.5", True),
    ("hyphen_range_above", "1.2 - 1.4", "1.5.0", False),
    ("and_or", ">1.2 <2 || 3.x", "3.1.0", True),
    ("comma_and", ">=1.0, <1.5", "1.5.0", False),
    ("wildcard_rejects_pre", "1.x", "1.0.0-alpha", False),
    ("star_any", "*", "0.0.1", True),
    ("not_equal_wildcard", "!=1.2.x", "1.3.0", True),
    ("not_equal_wildcard_same", "!=1.2.x", "1.2.7", False),
    ("le_dirty_minor", "<=1.2", "1.2.9", True),
    ("gt_dirty", ">1.2", "1.2.5", False),
    ("gt_dirty_next_minor", ">1.2", "1.3.0", True),
    ("equal_ignores_metadata", "=1.2.3", "v1.2.3+meta", True),
    ("bare_version", "1.2.3", "1.2.4", False),
    ("prerelease_same_tuple_only", ">=1.2.3-beta", "1.3.0-beta", True),
]


@pytest.mark.parametrize(("constraint", "version", "expected"), [c[1:] for c in CONSTRAINTS],
                         ids=[c[0] for c in CONSTRAINTS])
def test_semver_compare(constraint: str, version: str, expected: bool) -> None:
    assert sv.semver_compare(constraint, version) is expected


ERRORS = [
    ("bad_version", lambda: sv.semver("x"), "invalid semantic version"),
    ("empty_version", lambda: sv.semver(""), "invalid semantic version"),
    ("leading_zero_prerelease", lambda: sv.semver("1.0.0-01"), "version segment starts with 0"),
    ("bad_metadata", lambda: sv.semver("1.0.0+a..b"), "invalid semantic version"),
    ("bad_constraint", lambda: sv.semver_compare("!!", "1.0.0"), 'improper constraint: "!!"'),
    ("empty_constraint", lambda: sv.semver_compare("", "1.0.0"), 'improper constraint: ""'),
    ("bad_compare_version", lambda: sv.semver_compare(">1", "x"), "invalid semantic version"),
    ("set_prerelease_validates", lambda: sv.semver("1.0.0").SetPrerelease("01"), "version segment starts with 0"),
    ("too_long", lambda: sv.semver("1" * 257), "version string is too long (max 256 bytes)"),
]


@pytest.mark.parametrize(("call", "message"), [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_semver_errors(call, message: str) -> None:
    with pytest.raises(FuncError) as err:
        call()
    assert str(err.value) == message
