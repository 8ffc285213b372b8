"""helm_core.support.records: the dataclass subset the project's record classes rely on."""
from __future__ import annotations

import copy
import os
import pickle
import subprocess
import sys
from pathlib import Path
from typing import ClassVar

import pytest

from helm_core.support.records import (
    FrozenInstanceError,
    asdict,
    field,
    fields,
    is_record,
    record,
    replace,
    shallow_copy,
)
from tests.chartkit import chart_yaml, write_chart


@record
class Point:
    x: int
    y: int = 0
    tags: list[str] = field(default_factory=list)
    note: str = field(default="", repr=False, compare=False)
    kind: ClassVar[str] = "point"


@record(frozen=True)
class Version:
    major: int
    minor: int = 0
    original: str = field(default="", kw_only=True)

    def __post_init__(self) -> None:
        if not self.original:
            object.__setattr__(self, "original", f"{self.major}.{self.minor}")


@record
class Point3(Point):
    z: int = 0


def test_positional_keyword_and_defaults() -> None:
    p = Point(1, tags=["a"])
    assert (p.x, p.y, p.tags, p.note) == (1, 0, ["a"], "")
    assert Point(x=2, y=3).y == 3


@record(frozen=True)
class Span:
    start: int
    stop: int

    def __post_init__(self) -> None:
        if self.stop < self.start:
            raise ValueError("backwards")


def test_every_field_by_position_is_the_same_as_by_keyword() -> None:
    """The fast path (every field, in order, no keywords) sets what the general one sets,
    runs __post_init__, and leaves the others (fewer, more or keyword arguments) to it."""
    assert Point(1, 2, ["t"], "n") == Point(x=1, y=2, tags=["t"], note="n")
    assert Point(1, 2, ["t"], "n").note == "n"
    assert Span(1, 2) == Span(start=1, stop=2)
    with pytest.raises(ValueError, match="backwards"):
        Span(2, 1)
    with pytest.raises(FrozenInstanceError):
        Span(1, 2).start = 3  # type: ignore[misc]
    with pytest.raises(TypeError, match="takes 5 positional arguments but 6 were given"):
        Point(1, 2, [], "n", "extra")  # type: ignore[call-arg]
    assert Version(1, 2).original == "1.2"  # a keyword-only field: never the fast path


def test_default_factory_gives_each_instance_its_own_value() -> None:
    a, b = Point(1), Point(2)
    a.tags.append("x")
    assert b.tags == []


def test_class_var_is_not_a_field() -> None:
    assert [f.name for f in fields(Point)] == ["x", "y", "tags", "note"]
    assert Point.kind == "point"


def test_argument_errors_name_the_argument() -> None:
    with pytest.raises(TypeError, match="missing required argument: 'x'"):
        Point()
    with pytest.raises(TypeError, match="unexpected keyword argument 'w'"):
        Point(1, w=2)
    with pytest.raises(TypeError, match="multiple values for argument 'x'"):
        Point(1, x=2)
    with pytest.raises(TypeError, match="positional arguments"):
        Point(1, 2, [], "", 5)


def test_kw_only_field_is_not_positional() -> None:
    with pytest.raises(TypeError, match="positional arguments"):
        Version(1, 2, "x")
    assert Version(1, 2, original="v1.2").original == "v1.2"


def test_repr_and_eq_follow_field_options() -> None:
    assert repr(Point(1, note="hidden")) == "Point(x=1, y=0, tags=[])"
    assert Point(1, note="a") == Point(1, note="b")
    assert Point(1) != Point(2)
    assert Point(1) != Point3(1)


def test_frozen_records_refuse_assignment_and_hash_by_fields() -> None:
    v = Version(1, 2)
    assert v.original == "1.2"
    with pytest.raises(FrozenInstanceError):
        v.major = 3  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        del v.major  # type: ignore[misc]
    assert hash(v) == hash(Version(1, 2))
    assert len({v, Version(1, 2)}) == 1


def test_mutable_records_are_unhashable() -> None:
    with pytest.raises(TypeError):
        hash(Point(1))


def test_methods_the_class_defines_are_kept() -> None:
    @record
    class Custom:
        a: int

        def __repr__(self) -> str:
            return "custom"

        def __eq__(self, other: object) -> bool:
            return True

        __hash__ = None  # type: ignore[assignment]

    assert repr(Custom(1)) == "custom"
    assert Custom(1) == 5


def test_eq_false_keeps_identity_semantics() -> None:
    @record(eq=False)
    class Token:
        v: int

    t = Token(1)
    assert t != Token(1)
    assert {t: 1}[t] == 1


def test_inherited_fields_come_first() -> None:
    p = Point3(1, 2, z=3)
    assert [f.name for f in fields(p)] == ["x", "y", "tags", "note", "z"]
    assert (p.x, p.y, p.z) == (1, 2, 3)


def test_replace_runs_post_init_again_and_keeps_the_rest() -> None:
    v = replace(Version(1, 2), minor=5, original="")
    assert (v.major, v.minor, v.original) == (1, 5, "1.5")
    with pytest.raises(TypeError, match="unexpected keyword argument 'nope'"):
        replace(Version(1), nope=1)


def test_asdict_recurses() -> None:
    @record
    class Outer:
        inner: Point
        more: list[Point]

    assert asdict(Outer(Point(1), [Point(2)])) == {
        "inner": {"x": 1, "y": 0, "tags": [], "note": ""},
        "more": [{"x": 2, "y": 0, "tags": [], "note": ""}]}


def test_is_record_and_fields_of_a_plain_class() -> None:
    assert is_record(Point) and is_record(Point(1))
    assert not is_record(object())
    with pytest.raises(TypeError, match="not a record"):
        fields(object())


def test_field_refuses_default_and_factory_together() -> None:
    with pytest.raises(ValueError):
        field(default=1, default_factory=list)


def test_records_pickle_and_copy() -> None:
    v = Version(1, 2)
    assert pickle.loads(pickle.dumps(v)) == v
    p = Point(1, tags=["a"])
    q = copy.deepcopy(p)
    assert q == p and q.tags is not p.tags


def test_shallow_copy_is_what_copy_copy_makes_of_a_record() -> None:
    """Mutable, frozen (its __post_init__ not run again) and with an attribute outside the fields."""
    point = Point3(1, tags=["a"], z=3)
    point.extra = "kept"  # type: ignore[attr-defined]
    frozen = Version(1, original="v1")
    for original in (point, frozen):
        duplicate, reference = shallow_copy(original), copy.copy(original)
        assert type(duplicate) is type(original) and duplicate is not original
        assert vars(duplicate) == vars(reference) == vars(original)
        assert all(getattr(duplicate, k) is v for k, v in vars(original).items())  # values shared
    with pytest.raises(FrozenInstanceError):
        shallow_copy(frozen).major = 2  # type: ignore[misc]


def test_hash_false_field_is_compared_but_not_hashed() -> None:
    @record(frozen=True)
    class Owner:
        name: str
        reference: dict[str, str] | None = field(default=None, hash=False)

    assert hash(Owner("a", {"uid": "1"})) == hash(Owner("a"))
    assert Owner("a", {"uid": "1"}) != Owner("a")


def test_a_redefined_base_field_keeps_its_place() -> None:
    @record
    class Base:
        a: int = 1
        b: int = 2

    @record
    class Child(Base):
        a: int = 10
        c: int = 3

    assert [f.name for f in fields(Child)] == ["a", "b", "c"]
    assert (Child().a, Child(5).a) == (10, 5)


def test_helm_core_template_runs_without_importing_dataclasses(tmp_path: Path) -> None:
    """What this module is for: the CLI's start path defines its records without
    dataclasses (and so without inspect, ast, dis and tokenize)."""
    chart = write_chart(tmp_path / "src", {"Chart.yaml": chart_yaml("c"), "values.yaml": "a: 1\n",
                                           "templates/cm.yaml": "kind: ConfigMap\ndata:\n  a: {{ .Values.a }}\n"})
    script = ("import sys; from helm_core import cli; code = cli.main(['template', 'x', sys.argv[1]]); "
              "print(sorted(m for m in ('dataclasses', 'inspect') if m in sys.modules), file=sys.stderr); "
              "sys.exit(code)")
    run = subprocess.run([sys.executable, "-c", script, str(chart)], capture_output=True, text=True,
                         env=dict(os.environ, HELM_CORE_CACHE=str(tmp_path / "cache")), check=False)
    assert run.returncode == 0, run.stderr
    assert "a: 1" in run.stdout
    assert run.stderr.strip().splitlines()[-1] == "[]"
