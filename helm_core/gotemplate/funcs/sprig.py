"""The Sprig v3.3.0 function map as Helm 3.22 exposes it: :data:`SPRIG_FUNCS`.

Rules: every name of Sprig's ``TxtFuncMap`` except ``env`` and ``expandenv``
(Helm deletes them) and except the Sprig names Helm replaces with its own
functions in pkg/engine: ``toJson``, ``fromJson`` (funcs.go) and ``fail``
(engine.go wraps the message). ``getHostByName`` is Helm's no-DNS default ("").
"""
from __future__ import annotations

from collections.abc import Callable

from helm_core.gotemplate.funcs import (
    conversion,
    crypto,
    dates,
    defaults,
    dicts,
    encoding,
    lists,
    math,
    network,
    paths,
    random,
    reflection,
    regex,
    semver,
    strings,
    uuid,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: Sprig names Helm removes (env access) or replaces with its own implementation.
EXCLUDED_NAMES = frozenset({"env", "expandenv", "toJson", "fromJson", "fail"})


def _build() -> dict[str, Callable[..., Any]]:
    table: dict[str, Callable[..., Any]] = {}
    for module in (strings, conversion, math, defaults, encoding, lists, dicts, reflection, regex, semver,
                   dates, paths, network, crypto, random, uuid):
        for name, fn in module.FUNCS.items():
            if name in table:
                raise RuntimeError(f"duplicate Sprig function {name}")
            table[name] = fn
    return table


SPRIG_FUNCS: dict[str, Callable[..., Any]] = _build()
