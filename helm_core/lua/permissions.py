"""``ext/permissions.yaml``: what a chart's Lua asks for, and the check against what the
caller accepted.

The file reads ``lua: [network, io, os]``. A chart (or any subchart) asking for a
permission that was not accepted is refused before any Lua of the chart tree runs.

What each permission grants — nothing more:

- ``io``: read-only access to the chart's own files (every file of the chart archive or
  directory, by its path from the chart root, e.g. ``files/config.json``,
  ``templates/x.yaml``, ``ext/lua/chart.lua``; never a subchart's or the host's files).
  ``io.open(name[, "r"])`` returns a handle with ``read`` (formats ``"a"``, ``"l"``,
  ``"L"``, ``"n"`` or a byte count), ``lines``, ``seek`` and ``close``; any other mode
  returns ``nil, message``. ``io.lines(name)`` iterates lines; ``io.list()`` lists names.
- ``os``: ``os.time``, ``os.date``, ``os.clock`` and ``os.difftime`` only — no
  ``getenv``, ``execute``, ``remove``, ``rename``, ``tmpname``, ``exit`` or ``setlocale``.
- ``network``: ``network.get(url[, {headers = {...}}])``, an HTTP/1.1 GET to an
  ``http://`` or ``https://`` URL, returning ``{status, body, headers}`` (header names
  lower-cased). Redirects are not followed; the body is capped at
  ``LuaLimits.network_max_bytes`` and the call at ``network_timeout_seconds``. Any host
  the operator's process can reach is reachable: grant it only to charts you trust
  with your network.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping

from helm_core import errors
from helm_core.chart import model

PERMISSIONS_FILE = "ext/permissions.yaml"

PERMISSION_DESCRIPTIONS: Mapping[str, str] = {
    "io": "read the chart's own files",
    "network": "make HTTP GET requests",
    "os": "read the clock and format dates",
}
#: Every permission a chart can ask for; what ``-y/--yes`` accepts.
ALL_PERMISSIONS = frozenset(PERMISSION_DESCRIPTIONS)


def chart_permissions(chart: model.Chart) -> frozenset[str]:
    """The permissions one chart asks for in its ``ext/permissions.yaml`` (none if absent).

    Raises LuaError on a malformed file or an unknown permission name."""
    data = next((f.data for f in chart.files if f.name == PERMISSIONS_FILE), None)
    if data is None:
        return frozenset()
    import yaml  # only for a chart that has the file (PyYAML's import is costly: bench/deferred.py)

    try:
        doc = yaml.safe_load(data.decode("utf-8")) or {}
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise errors.LuaError(f"{PERMISSIONS_FILE}: cannot parse: {exc}",
                              chart=chart.name, file=PERMISSIONS_FILE) from None
    if not isinstance(doc, dict):
        raise errors.LuaError(f"{PERMISSIONS_FILE}: expected a map with a 'lua' list",
                              chart=chart.name, file=PERMISSIONS_FILE)
    asked = doc.get("lua") or []
    if not isinstance(asked, list) or not all(isinstance(p, str) for p in asked):
        raise errors.LuaError(f"{PERMISSIONS_FILE}: 'lua' must be a list of names",
                              chart=chart.name, file=PERMISSIONS_FILE)
    unknown = sorted(set(asked) - ALL_PERMISSIONS)
    if unknown:
        raise errors.LuaError(
            f"{PERMISSIONS_FILE}: unknown Lua permission(s) {', '.join(unknown)} "
            f"(known: {', '.join(sorted(ALL_PERMISSIONS))})", chart=chart.name, file=PERMISSIONS_FILE)
    return frozenset(asked)


def requested_permissions(chart: model.Chart) -> dict[str, frozenset[str]]:
    """Permissions asked by a chart and its subcharts, by chart path (only charts that
    ask for something); what a CLI shows before prompting."""
    found: dict[str, frozenset[str]] = {}
    for c in walk(chart):
        perms = chart_permissions(c)
        if perms:
            found[c.chart_path()] = perms
    return found


def check_accepted(chart: model.Chart, accepted: Iterable[str]) -> dict[str, frozenset[str]]:
    """Refuse the chart tree if any chart asks for a permission not in ``accepted``;
    returns the granted permissions by chart path. The message lists what each refused
    chart asked and what was accepted."""
    accepted_set = frozenset(accepted)
    asked = requested_permissions(chart)
    for path, perms in asked.items():
        missing = perms - accepted_set
        if missing:
            raise errors.LuaError(
                f'chart "{path}" asks for Lua permissions [{", ".join(sorted(perms))}] '
                f'but only [{", ".join(sorted(accepted_set))}] were accepted '
                f'(missing: {", ".join(sorted(missing))})',
                chart=path, file=PERMISSIONS_FILE)
    return asked


def describe(perms: Iterable[str]) -> list[str]:
    """Lines like ``network: make HTTP GET requests`` for a permission prompt."""
    return [f"{p}: {PERMISSION_DESCRIPTIONS.get(p, '?')}" for p in sorted(perms)]


def walk(chart: model.Chart) -> list[model.Chart]:
    """The chart tree in event order: subcharts first, depth first, the chart itself last."""
    order: list[model.Chart] = []
    for sub in chart.dependencies:
        order.extend(walk(sub))
    order.append(chart)
    return order
