"""Template functions whose answer is not decided by their arguments alone, and a count of
their calls.

A render that calls none of them gives the same text for the same chart, values and options
(the CLI keeps that text in its disk memo: :mod:`helm_core.cli.rendered`). The others read
the clock or the local time zone (``now``, ``ago``, the date functions), draw random numbers
(``rand*``, ``uuidv4``, ``shuffle``, salts and keys: ``bcrypt``, ``htpasswd``, ``encryptAES``,
``gen*``) or ask the world (``lookup``, ``getHostByName``). Every function of the template
language is listed either here or, in ``tests/engine/test_purity.py``, as pure: a new function
must be put on one side.
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Mapping

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

_calls = 0


def calls() -> int:
    """How many calls of impure functions this process has made (compare before and after)."""
    return _calls


def tracked(funcs: Mapping[str, Callable[..., Any]]) -> dict[str, Callable[..., Any]]:
    """``funcs`` with each impure function counting its calls (its Go signature kept)."""
    return {name: _counting(fn) if name in IMPURE else fn for name, fn in funcs.items()}


def _counting(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)  # copies __go_params__ and the other signature attributes
    def counted(*args: Any, **kwargs: Any) -> Any:
        global _calls
        _calls += 1
        return fn(*args, **kwargs)
    return counted
