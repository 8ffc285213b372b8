"""Network and URLs: ``getHostByName``, ``urlParse``, ``urlJoin``.

Why: ``getHostByName`` does no lookup: Helm 3.22 replaces it with a function
returning "" unless DNS is enabled (``--enable-dns``), and a renderer must not
touch the network. ``urlParse``/``urlJoin`` are Sprig's maps of Go's ``net/url``
(:mod:`helm_core.golib.gourl`), with Sprig's panic texts
(``unable to parse url: parse "x": missing protocol scheme``).
"""
from __future__ import annotations

from helm_core.golib import gourl
from helm_core.golib.gotypes import FuncError, signature
from helm_core.gotemplate.funcs import gohelpers

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@signature("string")
def url_parse(v: str) -> dict[str, Any]:
    """``urlParse``: scheme, host, hostname, path, query, opaque, fragment, userinfo."""
    try:
        u = gourl.parse(v)
    except gourl.URLError as e:
        raise FuncError(f"unable to parse url: {e}") from None
    return {
        "scheme": u.scheme, "host": u.host, "hostname": u.hostname(), "path": u.path,
        "query": u.raw_query, "opaque": u.opaque, "fragment": u.fragment, "userinfo": u.userinfo(),
    }


def _dict_get(d: dict[str, Any], key: str) -> str:
    """Sprig's ``dictGetOrEmpty``: "" when absent; anything but a string panics."""
    if key not in d:
        return ""
    value = d[key]
    if value is None:
        raise FuncError("runtime error: invalid memory address or nil pointer dereference")
    if not isinstance(value, str):
        raise FuncError(f"unable to parse {key} key, must be of type string, but {gohelpers.kind_of(value)} found")
    return value


@signature("map[string]interface {}")
def url_join(d: dict[str, Any] | None) -> str:
    """``urlJoin``: Go's ``URL.String`` of the dict's parts."""
    d = d or {}
    u = gourl.URL()
    u.scheme, u.host, u.path = _dict_get(d, "scheme"), _dict_get(d, "host"), _dict_get(d, "path")
    u.raw_query, u.opaque, u.fragment = _dict_get(d, "query"), _dict_get(d, "opaque"), _dict_get(d, "fragment")
    userinfo = _dict_get(d, "userinfo")
    if userinfo:
        # Sprig reads the user information by parsing it inside a made-up URL
        try:
            u.user = gourl.parse(f"proto://{userinfo}@host").user
        except gourl.URLError as e:
            raise FuncError(f"unable to parse userinfo in dict: {e}") from None
    return u.string()


@signature("string")
def get_host_by_name(name: str) -> str:
    """``getHostByName``: "" (Helm's default: no DNS lookups while rendering)."""
    return ""


FUNCS = {"getHostByName": get_host_by_name, "urlParse": url_parse, "urlJoin": url_join}
