"""Dict functions: ``dict``, ``get``, ``set``, ``unset``, ``hasKey``, ``pluck``, ``dig``,
``keys``, ``values``, ``pick``, ``omit``, ``merge``/``mergeOverwrite`` (+ ``must*``).

Why: Go maps are references, so ``set``, ``unset``, ``merge`` and
``mergeOverwrite`` MUTATE their first argument and return it: that is the
required semantics here, the one exception to "never mutate inputs". Merging
follows dario.cat/mergo v1.0.1: without overwrite a destination value wins
unless it is empty (nil, "", 0, false, empty list/map); nested maps merge in
place; with overwrite the source wins, nil included.
"""
from __future__ import annotations

from helm_core.golib.gotypes import FuncError, go_type_name, signature
from helm_core.gotemplate.funcs import defaults, gohelpers

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_MAP_TYPE = "map[string]interface {}"


@signature("interface {}", variadic=True)
def dict_(*pairs: Any) -> dict[str, Any]:
    """``dict K1 V1 K2 V2...``: keys via ``strval``; a missing last value is ""."""
    res: dict[str, Any] = {}
    for i in range(0, len(pairs), 2):
        key = pairs[i]
        if key.__class__ is not str:  # keys are nearly always strings: strval only for the rest
            key = gohelpers.strval(key)
        res[key] = pairs[i + 1] if i + 1 < len(pairs) else ""
    return res


@signature("map[string]interface {}", "string")
def get(d: dict[str, Any] | None, key: str) -> Any:
    """``get``: the value, or "" when the key is absent."""
    if d is not None and key in d:
        return d[key]
    return ""


@signature("map[string]interface {}", "string", "interface {}")
def set_(d: dict[str, Any] | None, key: str, value: Any) -> dict[str, Any]:
    """``set``: mutates and returns ``d`` (a nil map is Go's assignment panic)."""
    if d is None:
        raise FuncError("assignment to entry in nil map")
    d[key] = value
    return d


@signature("map[string]interface {}", "string")
def unset(d: dict[str, Any] | None, key: str) -> dict[str, Any] | None:
    """``unset``: mutates and returns ``d``."""
    if d is not None:
        d.pop(key, None)
    return d


@signature("map[string]interface {}", "string")
def has_key(d: dict[str, Any] | None, key: str) -> bool:
    """``hasKey``."""
    return d is not None and key in d


@signature("string", "map[string]interface {}", variadic=True)
def pluck(key: str, *dicts: dict[str, Any] | None) -> list[Any]:
    """``pluck``: the ``key`` value of every dict that has it."""
    return [d[key] for d in dicts if d is not None and key in d]


@signature("map[string]interface {}", variadic=True)
def keys(*dicts: dict[str, Any] | None) -> list[str]:
    """``keys``: all keys (Go's order is random; sorted here for stable output)."""
    out: list[str] = []
    for d in dicts:
        if d:
            out.extend(sorted(d, key=gohelpers.to_bytes))
    return out


@signature("map[string]interface {}")
def values(d: dict[str, Any] | None) -> list[Any]:
    """``values`` (random order in Go; key order here)."""
    if not d:
        return []
    return [d[k] for k in sorted(d, key=gohelpers.to_bytes)]


@signature("map[string]interface {}", "string", variadic=True)
def pick(d: dict[str, Any] | None, *names: str) -> dict[str, Any]:
    """``pick``: a new dict with only the listed keys."""
    return {k: d[k] for k in names if d is not None and k in d}


@signature("map[string]interface {}", "string", variadic=True)
def omit(d: dict[str, Any] | None, *names: str) -> dict[str, Any]:
    """``omit``: a new dict without the listed keys."""
    drop = set(names)
    return {k: v for k, v in (d or {}).items() if k not in drop}


def _interface_conversion(v: Any, want: str) -> FuncError:
    have = "nil" if v is None else go_type_name(v)
    return FuncError(f"interface conversion: interface {{}} is {have}, not {want}")


@signature("interface {}", variadic=True)
def dig(*args: Any) -> Any:
    """``dig K1 K2... DEFAULT DICT``: nested lookup; non-map steps are Go's conversion panic."""
    if len(args) < 3:
        raise FuncError("dig needs at least three arguments")
    d = args[-1]
    default = args[-2]
    if not isinstance(d, dict):
        raise _interface_conversion(d, _MAP_TYPE)
    path = []
    for k in args[:-2]:
        if not isinstance(k, str):
            raise _interface_conversion(k, "string")
        path.append(k)
    for i, k in enumerate(path):
        if k not in d:
            return default
        step = d[k]
        if i == len(path) - 1:
            return step
        if not isinstance(step, dict):
            raise _interface_conversion(step, _MAP_TYPE)
        d = step
    return default


def mergo_merge(dst: dict[str, Any], src: dict[str, Any], overwrite: bool) -> None:
    """mergo's map deepMerge of ``src`` into ``dst`` (in place).

    mergo's ``isEmptyValue`` is Sprig's ``empty`` rule on these values (``defaults.is_empty``).
    """
    for key, s in list(src.items()):
        exists = key in dst
        d = dst.get(key)
        if s is None:
            if overwrite:
                dst[key] = None
            continue
        if isinstance(s, dict):
            if isinstance(d, dict):
                mergo_merge(d, s, overwrite)
        elif isinstance(s, (list, tuple, bytes)):
            if overwrite or not dst:
                dst[key] = s
            elif not exists or d is None:
                dst[key] = []
        if exists and not defaults.is_empty(d):
            if isinstance(s, (list, tuple, bytes)):
                continue
            if isinstance(s, dict) and isinstance(d, dict):
                continue
        if overwrite or not exists or defaults.is_empty(d):
            dst[key] = s


def _merge(dst: dict[str, Any] | None, srcs: tuple[dict[str, Any] | None, ...], overwrite: bool) -> dict[str, Any]:
    target = {} if dst is None else dst
    for src in srcs:
        if src:
            mergo_merge(target, src, overwrite)
    return target


@signature("map[string]interface {}", "map[string]interface {}", variadic=True)
def merge(dst: dict[str, Any] | None, *srcs: dict[str, Any] | None) -> dict[str, Any]:
    """``merge``/``mustMerge``: fill ``dst`` from the sources (dst wins); mutates ``dst``."""
    return _merge(dst, srcs, overwrite=False)


@signature("map[string]interface {}", "map[string]interface {}", variadic=True)
def merge_overwrite(dst: dict[str, Any] | None, *srcs: dict[str, Any] | None) -> dict[str, Any]:
    """``mergeOverwrite``/``mustMergeOverwrite``: sources win; mutates ``dst``."""
    return _merge(dst, srcs, overwrite=True)


FUNCS = {
    "dict": dict_,
    "get": get,
    "set": set_,
    "unset": unset,
    "hasKey": has_key,
    "pluck": pluck,
    "keys": keys,
    "values": values,
    "pick": pick,
    "omit": omit,
    "dig": dig,
    "merge": merge,
    "mustMerge": merge,
    "mergeOverwrite": merge_overwrite,
    "mustMergeOverwrite": merge_overwrite,
}
