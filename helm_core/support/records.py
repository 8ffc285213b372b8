"""Record classes: the part of :mod:`dataclasses` this project uses, without its start-up cost.

``@dataclasses.dataclass`` writes each class's ``__init__``, ``__repr__`` and ``__eq__`` as
source text and ``exec``-s it, and importing :mod:`dataclasses` imports :mod:`inspect` (with
``ast``, ``dis`` and ``tokenize``). ``helm-core template`` defines 27 record classes before it
renders anything: as dataclasses they cost 15-20 ms of an 80 ms process (measured by swapping
in a no-op decorator), a quarter of what the "cold CLI within 2x of helm" goal leaves us;
``bench/startup.py`` prints the start path's import time. :func:`record` builds the same
methods as closures over a field table: declarations read exactly like dataclasses, and the
behaviour is the subset below.

- Fields are the class's annotations in order (``ClassVar[...]`` ones are not fields),
  after the fields of record base classes.
- ``field(default=, default_factory=, repr=, compare=, hash=, kw_only=)``; a plain class
  attribute is the default. ``kw_only`` fields (all of them with ``record(kw_only=True)``)
  are keyword arguments only; the others are also positional, in declaration order.
- ``frozen=True``: assigning or deleting an attribute raises :class:`FrozenInstanceError`;
  ``__post_init__`` may still set attributes with ``object.__setattr__``.
- ``eq=True`` (default): ``==`` compares the ``compare`` fields of two instances of the same
  class; frozen records then hash by those fields, mutable ones are unhashable. Methods the
  class body defines itself are kept.
- :func:`replace`, :func:`shallow_copy`, :func:`fields`, :func:`asdict`, :func:`is_record`.
"""
from __future__ import annotations

from collections.abc import Callable

# Names for type checkers only: importing typing is start-up time the CLI's render path
# otherwise does without (bench/deferred.py). Type checkers take this name as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeVar, dataclass_transform

    _T = TypeVar("_T")
else:
    def dataclass_transform(**_: object) -> Callable[[Callable[..., object]], Callable[..., object]]:
        """typing's marker for type checkers: it changes nothing at run time."""
        return lambda decorated: decorated


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class FrozenInstanceError(AttributeError):
    """Assignment to a field of a frozen record."""


class Field:
    """One field of a record class (what :func:`fields` returns)."""

    __slots__ = ("name", "default", "default_factory", "repr", "compare", "hash", "kw_only")

    def __init__(self, default: Any = MISSING, default_factory: Callable[[], Any] = MISSING,
                 repr: bool = True, compare: bool = True, hash: bool | None = None,
                 kw_only: bool = False) -> None:
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.name = ""
        self.default = default
        self.default_factory = default_factory
        self.repr = repr
        self.compare = compare
        self.hash = compare if hash is None else hash
        self.kw_only = kw_only

    def __repr__(self) -> str:
        return f"Field(name={self.name!r}, default={self.default!r}, kw_only={self.kw_only})"


def field(*, default: Any = MISSING, default_factory: Callable[[], Any] = MISSING,
          repr: bool = True, compare: bool = True, hash: bool | None = None,
          kw_only: bool = False) -> Any:
    """A field with options, as ``dataclasses.field``."""
    return Field(default, default_factory, repr, compare, hash, kw_only)


_FIELDS = "__record_fields__"


def _is_class_var(annotation: Any) -> bool:
    # With `from __future__ import annotations` every annotation is a string.
    text = annotation if isinstance(annotation, str) else repr(annotation)
    return text.startswith(("ClassVar", "typing.ClassVar"))


def _collect_fields(cls: type, kw_only: bool) -> tuple[Field, ...]:
    by_name: dict[str, Field] = {}
    for base in reversed(cls.__mro__[1:]):
        for f in base.__dict__.get(_FIELDS, ()):
            by_name[f.name] = f
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():
        if _is_class_var(annotation):
            continue
        declared = cls.__dict__.get(name, MISSING)
        f = declared if isinstance(declared, Field) else Field(default=declared)
        f.name = name
        f.kw_only = f.kw_only or kw_only
        if isinstance(declared, Field):
            # The class attribute becomes the plain default, as with dataclasses.
            if f.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
        by_name[name] = f  # a redefined base field keeps its place, as with dataclasses
    return tuple(by_name.values())


def _make_init(cls: type, table: tuple[Field, ...]) -> Callable[..., None]:
    positional = [f for f in table if not f.kw_only]
    known = {f.name for f in table}
    setter = object.__setattr__
    post_init = getattr(cls, "__post_init__", None)
    name = cls.__qualname__
    # Every field given in order, by position (``File(name, data)``): the commonest call, on
    # paths that make thousands of records (a chart's files on every load).
    every = tuple(f.name for f in table) if len(positional) == len(table) else None

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if every is not None and not kwargs and len(args) == len(every):  # (lengths equal: checked)
            for field_name, value in zip(every, args, strict=False):
                setter(self, field_name, value)
            if post_init is not None:
                post_init(self)
            return
        values = kwargs
        if args:
            if len(args) > len(positional):
                raise TypeError(f"{name}.__init__() takes {len(positional) + 1} positional "
                                f"arguments but {len(args) + 1} were given")
            values = dict(kwargs)
            for f, value in zip(positional, args, strict=False):
                if f.name in kwargs:
                    raise TypeError(f"{name}.__init__() got multiple values for argument '{f.name}'")
                values[f.name] = value
        used = 0
        for f in table:
            if f.name in values:
                setter(self, f.name, values[f.name])
                used += 1
            elif f.default is not MISSING:
                setter(self, f.name, f.default)
            elif f.default_factory is not MISSING:
                setter(self, f.name, f.default_factory())
            else:
                raise TypeError(f"{name}.__init__() missing required argument: '{f.name}'")
        if used != len(values):
            unknown = next(k for k in values if k not in known)
            raise TypeError(f"{name}.__init__() got an unexpected keyword argument '{unknown}'")
        if post_init is not None:
            post_init(self)

    return __init__


def _make_repr(table: tuple[Field, ...]) -> Callable[[Any], str]:
    shown = [f.name for f in table if f.repr]

    def __repr__(self: Any) -> str:
        inner = ", ".join(f"{n}={getattr(self, n)!r}" for n in shown)
        return f"{type(self).__qualname__}({inner})"

    return __repr__


def _make_eq(table: tuple[Field, ...]) -> tuple[Callable[[Any, Any], Any], Callable[[Any], int]]:
    compared = tuple(f.name for f in table if f.compare)
    hashed = tuple(f.name for f in table if f.hash)

    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return (tuple(getattr(self, n) for n in compared)
                == tuple(getattr(other, n) for n in compared))

    def __hash__(self: Any) -> int:
        return hash(tuple(getattr(self, n) for n in hashed))

    return __eq__, __hash__


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    raise FrozenInstanceError(f"cannot assign to field '{name}'")


def _frozen_delattr(self: Any, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field '{name}'")


def _build(cls: type[_T], *, frozen: bool, eq: bool, repr: bool, kw_only: bool) -> type[_T]:
    table = _collect_fields(cls, kw_only)
    own = cls.__dict__
    explicit_hash = "__hash__" in own and not (own["__hash__"] is None and "__eq__" in own)
    setattr(cls, _FIELDS, table)
    # setattr: the methods are made at run time, which is what the type checker cannot follow.
    if "__init__" not in own:
        setattr(cls, "__init__", _make_init(cls, table))
    if repr and "__repr__" not in own:
        setattr(cls, "__repr__", _make_repr(table))
    if eq:
        eq_method, hash_method = _make_eq(table)
        if "__eq__" not in own:
            setattr(cls, "__eq__", eq_method)
        if not explicit_hash:
            setattr(cls, "__hash__", hash_method if frozen else None)
    if frozen:
        setattr(cls, "__setattr__", _frozen_setattr)
        setattr(cls, "__delattr__", _frozen_delattr)
    return cls


@dataclass_transform(field_specifiers=(field, Field))
def record(cls: type[_T] | None = None, /, *, frozen: bool = False, eq: bool = True,
           repr: bool = True, kw_only: bool = False) -> Any:
    """Make ``cls`` a record class: ``@record`` or ``@record(frozen=True, ...)``."""
    def wrap(c: type[_T]) -> type[_T]:
        return _build(c, frozen=frozen, eq=eq, repr=repr, kw_only=kw_only)

    return wrap if cls is None else wrap(cls)


def _table(obj: Any) -> tuple[Field, ...] | None:
    return getattr(obj if isinstance(obj, type) else type(obj), _FIELDS, None)


def is_record(obj: Any) -> bool:
    """True for a record class or an instance of one."""
    return _table(obj) is not None


def fields(obj: Any) -> tuple[Field, ...]:
    """The fields of a record class or instance, in order."""
    table = _table(obj)
    if table is None:
        raise TypeError(f"{obj!r} is not a record class or instance")
    return table


def replace(obj: _T, /, **changes: Any) -> _T:
    """A copy of ``obj`` with ``changes``; ``__post_init__`` runs again, as with dataclasses."""
    for f in fields(obj):
        if f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    return type(obj)(**changes)


def shallow_copy(obj: _T, /) -> _T:
    """What ``copy.copy`` makes of a record instance (the same class and attributes, values
    shared), without importing :mod:`copy` (with weakref, ~1 ms of a CLI run for two calls
    in chart/dependencies). No ``__init__`` or ``__post_init__`` runs; frozen ones too."""
    duplicate: _T = object.__new__(type(obj))
    duplicate.__dict__.update(obj.__dict__)
    return duplicate


def asdict(obj: Any) -> Any:
    """A record as a dict of its fields, recursively through records, lists, tuples and dicts."""
    if is_record(obj) and not isinstance(obj, type):
        return {f.name: asdict(getattr(obj, f.name)) for f in fields(obj)}
    if isinstance(obj, (list, tuple)):
        return type(obj)(asdict(v) for v in obj)
    if isinstance(obj, dict):
        return {k: asdict(v) for k, v in obj.items()}
    return obj
