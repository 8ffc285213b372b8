"""Network and URLs: ``getHostByName``, ``urlParse``, ``urlJoin``.

Why: ``getHostByName`` does no lookup: Helm 3.22 replaces it with a function
returning "" unless DNS is enabled (``--enable-dns``), and a renderer must not
touch the network. ``urlParse``/``urlJoin`` port Go's ``net/url`` parsing,
escaping and ``URL.String`` so results and panic texts match
(``unable to parse url: parse "x": missing protocol scheme``).
"""
from __future__ import annotations

from helm_core.golib.gotypes import FuncError, signature
from helm_core.gotemplate import gofmt
from helm_core.gotemplate.funcs import gohelpers

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_PATH, _HOST, _USER, _FRAGMENT = "path", "host", "user", "fragment"
_HOST_OK = set("!$&'()*+,;=:[]<>\"")
_USERINFO_OK = set("-._:~!$&'()*+,;=%@")


class _URLError(Exception):
    pass


def _should_escape(c: str, mode: str) -> bool:
    if c.isascii() and c.isalnum():
        return False
    if mode == _HOST and c in _HOST_OK:
        return False
    if c in "-_.~":
        return False
    if c in "$&+,/:;=?@":
        if mode == _PATH:
            return c == "?"
        if mode == _USER:
            return c in "@/?:"
        return False
    if mode == _FRAGMENT and c in "!()*":
        return False
    return True


def escape(s: str, mode: str) -> str:
    """Go's ``url.escape``: percent-encode bytes (upper-case hex)."""
    out = []
    for b in gohelpers.to_bytes(s):
        c = chr(b)
        out.append(f"%{b:02X}" if b >= 0x80 or _should_escape(c, mode) else c)
    return "".join(out)


def unescape(s: str, mode: str) -> str:
    """Go's ``url.unescape`` (no '+' decoding outside queries); bad escapes raise."""
    raw = gohelpers.to_bytes(s)
    out = bytearray()
    i = 0
    while i < len(raw):
        if raw[i] == 0x25:
            hexpart = raw[i + 1:i + 3]
            if len(hexpart) < 2 or not all(chr(h) in "0123456789abcdefABCDEF" for h in hexpart):
                bad = gohelpers.from_bytes(raw[i:i + 3])
                raise _URLError(f"invalid URL escape {gofmt.quote(bad)}")
            out.append(int(hexpart, 16))
            i += 3
            continue
        out.append(raw[i])
        i += 1
    return gohelpers.from_bytes(bytes(out))


def _get_scheme(raw: str) -> tuple[str, str]:
    for i, c in enumerate(raw):
        if c.isascii() and c.isalpha():
            continue
        if c.isascii() and (c.isdigit() or c in "+-."):
            if i == 0:
                return "", raw
            continue
        if c == ":":
            if i == 0:
                raise _URLError("missing protocol scheme")
            return raw[:i], raw[i + 1:]
        return "", raw
    return "", raw


def parse_url(raw: str) -> dict[str, Any]:
    """Go's ``url.Parse`` reduced to the fields Sprig reports; raises :class:`_URLError`."""
    u: dict[str, Any] = {"scheme": "", "opaque": "", "user": None, "host": "", "path": "", "query": "", "fragment": ""}
    rest_all, _, frag = raw.partition("#")
    if any(ord(c) < 0x20 or c == "\x7f" for c in rest_all):
        raise _URLError("net/url: invalid control character in URL")
    if rest_all:
        scheme, rest = _get_scheme(rest_all)
        u["scheme"] = scheme.lower()
        if rest.endswith("?") and rest.count("?") == 1:
            rest = rest[:-1]
        else:
            rest, _, u["query"] = rest.partition("?")
        opaque = not rest.startswith("/") and bool(u["scheme"])
        if opaque:
            u["opaque"] = rest
        elif not rest.startswith("/") and ":" in rest.partition("/")[0]:
            raise _URLError("first path segment in URL cannot contain colon")
        if not opaque:
            if (u["scheme"] or not rest.startswith("///")) and rest.startswith("//"):
                authority, slash, tail = rest[2:].partition("/")
                rest = slash + tail
                at = authority.rfind("@")
                host = authority[at + 1:] if at >= 0 else authority
                u["host"] = unescape(host, _HOST) if "%" in host else host
                if at >= 0:
                    info = authority[:at]
                    if not all(c.isascii() and c.isalnum() or c in _USERINFO_OK for c in info):
                        raise _URLError("net/url: invalid userinfo")
                    name, colon, password = info.partition(":")
                    u["user"] = (unescape(name, _USER), unescape(password, _USER) if colon else None)
            u["path"] = unescape(rest, _PATH)
    if frag:
        u["fragment"] = unescape(frag, _FRAGMENT)
    return u


def _user_string(user: tuple[str, str | None]) -> str:
    name, password = user
    s = escape(name, _USER)
    if password is not None:
        s += ":" + escape(password, _USER)
    return s


def _hostname(host: str) -> str:
    if host.startswith("["):
        end = host.find("]")
        return host[1:end] if end >= 0 else host[1:]
    colon = host.rfind(":")
    if colon >= 0 and host[colon + 1:].isdigit() or host.endswith(":"):
        return host[:colon]
    return host


@signature("string")
def url_parse(v: str) -> dict[str, Any]:
    """``urlParse``: scheme, host, hostname, path, query, opaque, fragment, userinfo."""
    try:
        u = parse_url(v)
    except _URLError as e:
        raise FuncError(f"unable to parse url: parse {gofmt.quote(v)}: {e}") from None
    return {
        "scheme": u["scheme"], "host": u["host"], "hostname": _hostname(u["host"]), "path": u["path"],
        "query": u["query"], "opaque": u["opaque"], "fragment": u["fragment"],
        "userinfo": _user_string(u["user"]) if u["user"] is not None else "",
    }


def _dict_get(d: dict[str, Any], key: str) -> str:
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
    scheme, host, path = _dict_get(d, "scheme"), _dict_get(d, "host"), _dict_get(d, "path")
    query, opaque, fragment = _dict_get(d, "query"), _dict_get(d, "opaque"), _dict_get(d, "fragment")
    userinfo = _dict_get(d, "userinfo")
    user = None
    if userinfo:
        probe = f"proto://{userinfo}@host"
        try:
            user = parse_url(probe)["user"]
        except _URLError as e:
            raise FuncError(f"unable to parse userinfo in dict: parse {gofmt.quote(probe)}: {e}") from None
    out = []
    if scheme:
        out.append(scheme + ":")
    if opaque:
        out.append(opaque)
    else:
        if scheme or host or user is not None:
            if host or path or user is not None:
                out.append("//")
            if user is not None:
                out.append(_user_string(user) + "@")
            if host:
                out.append(escape(host, _HOST))
        epath = "*" if path == "*" else escape(path, _PATH)
        if epath and epath[0] != "/" and host:
            out.append("/")
        if not out and ":" in epath.partition("/")[0]:
            out.append("./")
        out.append(epath)
    if query:
        out.append("?" + query)
    if fragment:
        out.append("#" + escape(fragment, _FRAGMENT))
    return "".join(out)


@signature("string")
def get_host_by_name(name: str) -> str:
    """``getHostByName``: "" (Helm's default: no DNS lookups while rendering)."""
    return ""


FUNCS = {"getHostByName": get_host_by_name, "urlParse": url_parse, "urlJoin": url_join}
