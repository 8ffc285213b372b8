"""Template functions whose answer is not decided by their arguments alone, and a count of
their calls.

A render that calls none of them gives the same text for the same chart, values and options
(the CLI keeps that text in its disk memo: :mod:`helm_core.cli.rendered`). The others read
the clock or the local time zone (``now``, ``ago``, the date functions), draw random numbers
(``rand*``, ``uuidv4``, ``shuffle``, salts and keys: ``bcrypt``, ``htpasswd``, ``encryptAES``,
``gen*``) or ask the world (``getHostByName``, and ``lookup`` when a cluster answers it:
``helm template``'s lookups all return an empty map). Every function of the template
language is listed either here or, in ``tests/engine/test_purity.py``, as pure: a new function
must be put on one side.

Templates of one render also share their data: ``.Values`` and the other maps every template of
a chart reads. The functions that change a map in place (:data:`MUTATORS`, :data:`DEEP_MUTATORS`)
are watched while a :class:`Ledger` is kept: a template rendered after a change to shared data
may depend on the template that made it, so its output is not reused alone.
"""
from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator, Mapping

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

IMPURE = frozenset({
    # the clock and the local time zone
    "now", "ago", "date", "dateInZone", "date_in_zone", "dateModify", "date_modify", "mustDateModify",
    "must_date_modify", "htmlDate", "htmlDateInZone", "toDate", "mustToDate", "unixEpoch", "durationRound",
    # randomness
    "randAlpha", "randAlphaNum", "randAscii", "randBytes", "randInt", "randNumeric", "shuffle", "uuidv4",
    # fresh salts, initialisation vectors and keys
    "bcrypt", "htpasswd", "encryptAES", "genCA", "genCAWithKey", "genPrivateKey", "genSelfSignedCert",
    "genSelfSignedCertWithKey", "genSignedCert", "genSignedCertWithKey",
    # the world outside the chart
    "lookup", "getHostByName",
})

#: Functions that change a map they are given (Sprig's ``set``/``unset`` change their first
#: argument; the merges change the first and, deeply, the maps nested in it).
MUTATORS = frozenset({"set", "unset"})
DEEP_MUTATORS = frozenset({"merge", "mustMerge", "mergeOverwrite", "mustMergeOverwrite"})

#: Impure only when a cluster answers (``helm template`` answers every lookup with an empty
#: map): the function counts its own calls then (:func:`count_call`), it is not wrapped.
SELF_COUNTED = frozenset({"lookup"})

_calls = 0
#: ids of the maps the templates of the render being watched share (None: nothing watched).
_shared: set[int] | None = None
_shared_writes = 0


def calls() -> int:
    """How many calls of impure functions this process has made (compare before and after)."""
    return _calls


def count_call() -> None:
    """Count a call of an impure function that counts itself (:data:`SELF_COUNTED`)."""
    global _calls
    _calls += 1


def tracked(funcs: Mapping[str, Callable[..., Any]]) -> dict[str, Callable[..., Any]]:
    """``funcs`` with each impure function counting its calls and each mutator watched (their
    Go signatures kept)."""
    from helm_core.golib.gotypes import DeferredFunc

    out = {}
    for name, fn in funcs.items():
        wrap: Callable[[Callable[..., Any]], Callable[..., Any]] | None = None
        if name in IMPURE and name not in SELF_COUNTED:
            wrap = _counting
        elif name in MUTATORS or name in DEEP_MUTATORS:
            wrap = functools.partial(_watching, deep=name in DEEP_MUTATORS)
        if wrap is not None:  # a deferred function is wrapped once loaded (its module is not imported now)
            fn = fn.then(wrap) if isinstance(fn, DeferredFunc) else wrap(fn)
        out[name] = fn
    return out


def _counting(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)  # copies __go_params__ and the other signature attributes
    def counted(*args: Any, **kwargs: Any) -> Any:
        count_call()
        return fn(*args, **kwargs)
    return counted


def _watching(fn: Callable[..., Any], *, deep: bool) -> Callable[..., Any]:
    @functools.wraps(fn)
    def watched(*args: Any, **kwargs: Any) -> Any:
        global _shared_writes
        if _shared is not None and args and _changes_shared(args[0], _shared, deep):
            _shared_writes += 1
        return fn(*args, **kwargs)
    return watched


def _changes_shared(target: Any, shared: set[int], deep: bool) -> bool:
    """Whether changing ``target`` (and, ``deep``, the maps nested in it) changes a shared map."""
    pending = [target]
    while pending:
        item = pending.pop()
        if id(item) in shared:
            return True
        if deep and isinstance(item, dict):
            pending.extend(v for v in item.values() if isinstance(v, dict))
    return False


def shared_maps(roots: list[Any]) -> set[int]:
    """ids of every map (and list) reachable from ``roots``, through maps, lists and Go
    structs' fields: what the templates of a render share."""
    seen: set[int] = set()
    pending = list(roots)
    while pending:
        item = pending.pop()
        if id(item) in seen:
            continue
        if isinstance(item, dict):
            seen.add(id(item))
            pending.extend(item.values())
        elif isinstance(item, list):
            seen.add(id(item))
            pending.extend(item)
        else:  # a Go struct's fields (``.Chart.Annotations`` is a map too)
            members = getattr(item, "go_members", None)
            fields = getattr(item, "__dict__", None)
            if members and fields:
                pending.extend(v for k, v in fields.items() if k in members)
    return seen


class Ledger:
    """Which templates of one render called impure functions, and which first changed data the
    others share; given the outputs an identical earlier render kept, the render takes them
    instead of rendering those templates again.

    A template that called no impure function, rendered before any template changed a shared
    map, gives the same text for the same chart, values and options, whatever the templates
    after it drew at random: ``helm-core template`` keeps those texts
    (:mod:`helm_core.cli.rendered`) and renders only the others (a chart that generates a
    password renders its Secret, not its Service). Counting and watching are per process: one
    render at a time keeps a ledger.
    """

    def __init__(self, known: Mapping[str, str] | None = None,
                 known_documents: Mapping[str, tuple[str, list[Any]]] | None = None) -> None:
        #: Outputs an earlier identical render kept, by template name: not rendered again.
        self.known: dict[str, str] = dict(known or {})
        #: What some of them decode to, by template name: (the output, its documents).
        self.known_documents: dict[str, tuple[str, list[Any]]] = dict(known_documents or {})
        #: Every template's documents in this render, by name: (its output, its documents).
        self.documents: dict[str, tuple[str, list[Any]]] = {}
        #: Templates that called an impure function in this render.
        self.impure: set[str] = set()
        #: The first template (in render order) that changed a map other templates read.
        self.first_write: str | None = None
        #: A template rendered anew changed shared data before a kept output's turn: the kept
        #: outputs may not hold, the render must be done again without them.
        self.stale = False
        #: Every template's output in this render, taken or rendered, in render order.
        self.outputs: dict[str, str] = {}

    def reusable(self) -> dict[str, str]:
        """The outputs a later identical render may take instead of rendering: those of pure
        templates rendered before the first change to shared data."""
        kept = {}
        for name, text in self.outputs.items():
            if name == self.first_write:
                break
            if name not in self.impure:
                kept[name] = text
        return kept


def shared_writes() -> int:
    """How many calls of mutators changed a watched shared map (compare before and after)."""
    return _shared_writes


@contextlib.contextmanager
def watching(roots: list[Any]) -> Iterator[None]:
    """Watch the mutators while a render runs over the data reachable from ``roots``."""
    global _shared
    _shared = shared_maps(roots)
    try:
        yield
    finally:
        _shared = None
