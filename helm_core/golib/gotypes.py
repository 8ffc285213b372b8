"""How Go values live in Python inside the template engine, and how functions declare Go signatures.

The value model (every module of the engine and every function family follows it):

=====================  =============================================
Go                     Python
=====================  =============================================
nil (interface{})      ``None``
bool                   ``bool`` (never treated as a number)
int, int64, uint...    ``int``  (values from ``--set``, ``len``, ``add``...)
float64                ``float`` (every number read from YAML/JSON)
string                 ``str``
[]byte                 ``bytes``
[]interface{}, []T     ``list`` (tuples are accepted as read-only slices)
map[string]interface{} ``dict`` with ``str`` keys
time.Time              ``datetime.datetime`` (timezone-aware)
time.Duration          :class:`Duration`
struct / pointer       a :class:`GoObject` subclass (``.Chart``, ``.Capabilities``,
                       ``.Files``, ``semver`` results...)
=====================  =============================================

Template functions are plain Python callables with a Go signature attached by
:func:`signature`; the runtime checks arguments against it exactly as Go's
``text/template`` does (wrong count, wrong type, nil for a non-nillable type) and
turns a raised :class:`FuncError` into Go's ``error calling NAME: MSG``.
"""
from __future__ import annotations

import datetime
from collections.abc import Callable

from helm_core.support.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar, TypeVar

    F = TypeVar("F", bound=Callable[..., Any])

#: Go type names used in signatures. A trailing "..." form marks a variadic last parameter.
GO_PARAM_TYPES = frozenset(
    {
        "interface {}",
        "string",
        "int",
        "int64",
        "float64",
        "bool",
        "[]interface {}",
        "[]string",
        "map[string]interface {}",
        "[]byte",
        "time.Time",
        "reflect.Value",
        # Struct types of Sprig functions' parameters (semver methods, genSignedCert's CA).
        "*semver.Version",
        "sprig.certificate",
    }
)


class FuncError(Exception):
    """Raised by a template function: Go's non-nil ``error`` result.

    The runtime reports it as ``error calling <name>: <message>``.
    """


#: Past this depth a map or list a function walks is looked for among those holding it.
CYCLE_CHECK_DEPTH = 1000


def enter_once(value: Any, path: set[int], doing: str) -> None:
    """Note ``value`` (a map or list) as being walked; one walked already holds itself (made
    with ``set`` or ``append``), which a recursive walk would follow for ever: refused."""
    if id(value) in path:
        raise FuncError(f"cannot {doing} a {go_type_name(value)} that contains itself")
    path.add(id(value))


class Int64(int):
    """A Go ``int64`` where Go keeps it apart from ``int`` (Sprig math results, ``int64``).

    It behaves as a plain ``int`` everywhere; only type names differ (``%T``,
    ``typeOf``, ``reflect.DeepEqual``), and Sprig's ``duration`` accepts it where
    it ignores a plain ``int``.
    """

    __slots__ = ()


@record(frozen=True)
class Duration:
    """A Go ``time.Duration`` in nanoseconds; prints like Go (``1h2m3s``)."""

    nanoseconds: int


class GoObject:
    """A Go struct or pointer exposed to templates.

    ``go_type`` is the Go type name used in error messages (``*chart.Metadata``).
    Fields are looked up with :meth:`go_field`; a method is returned as a bound
    Python callable carrying a signature, and the runtime calls it with the
    arguments of the template command (``.Files.Get "a.txt"``).
    """

    go_type: ClassVar[str] = "struct"
    #: Names visible to templates (Go exported fields and methods). Nothing else is reachable.
    go_members: ClassVar[frozenset[str]] = frozenset()

    def go_field(self, name: str) -> Any:
        """The field or method ``name``; raises ``KeyError`` if the type has none."""
        if name not in self.go_members:
            raise KeyError(name)
        return getattr(self, name)


def signature(*params: str, variadic: bool = False) -> Callable[[F], F]:
    """Attach a Go signature to a template function.

    ``params`` are Go type names from :data:`GO_PARAM_TYPES`. With ``variadic=True``
    the last one is the element type of ``...T``. Example: ``@signature("string", "int")``
    for ``func(s string, n int) string``; ``@signature("interface {}", variadic=True)``
    for ``func(v ...interface{})``.
    """
    for p in params:
        if p not in GO_PARAM_TYPES:
            raise ValueError(f"unknown Go parameter type {p!r}")

    def attach(fn: F) -> F:
        fn.__go_params__ = tuple(params)  # type: ignore[attr-defined]
        fn.__go_variadic__ = variadic  # type: ignore[attr-defined]
        return fn

    return attach


class DeferredFunc:
    """A template function known by its Go signature, whose code is loaded by its first call
    (``load`` returns it): a short process that renders imports only the function modules its
    templates call. The template runtime binds a call site to the loaded function
    (``runtime.resolved_plan``), so later calls pay nothing for the deferral."""

    __slots__ = ("__go_params__", "__go_variadic__", "_load", "_fn")

    def __init__(self, load: Callable[[], Callable[..., Any]], params: tuple[str, ...] | None,
                 variadic: bool) -> None:
        if params is not None:  # (unset: no signature, as an undecorated function has none)
            self.__go_params__ = params
            self.__go_variadic__ = variadic
        self._load = load
        self._fn: Callable[..., Any] | None = None

    def resolve(self) -> Callable[..., Any]:
        """The function (loaded now if no call loaded it yet)."""
        fn = self._fn
        if fn is None:  # two threads may both load: the same module's same function
            fn = self._fn = self._load()
        return fn

    def then(self, wrap: Callable[[Callable[..., Any]], Callable[..., Any]]) -> DeferredFunc:
        """This function wrapped by ``wrap`` once loaded, deferred as well (same signature)."""
        params = getattr(self, "__go_params__", None)
        return DeferredFunc(lambda: wrap(self.resolve()), params, getattr(self, "__go_variadic__", False))

    def __call__(self, *args: Any) -> Any:
        return self.resolve()(*args)


def go_type_name(value: Any) -> str:
    """The Go type name of a Python value in the model (``%T``, ``typeOf``, error texts)."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, Int64):
        return "int64"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, complex):  # only template constants such as 1+2i make these
        return "complex128"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bytes):
        return "[]uint8"
    if isinstance(value, (list, tuple)):
        return "[]interface {}"
    if isinstance(value, dict):
        return "map[string]interface {}"
    if isinstance(value, datetime.datetime):
        return "time.Time"
    if isinstance(value, Duration):
        return "time.Duration"
    if isinstance(value, GoObject):
        return value.go_type
    return type(value).__name__
