"""Go's ``net/url.Parse`` (Go 1.26): a URL's parts, or Go's error text.

Go strings are bytes: a Python string stands for one with invalid UTF-8 kept as surrogate
escapes (as elsewhere in golib). The parse walks the bytes as Go does, so its errors quote
what Go quotes (``parse "http://[::1": missing ']' in host``). Go 1.26's default
``urlstrictcolons``: an http(s) host with more than one colon is refused.
"""
from __future__ import annotations

from helm_core.golib import gonetip, gostrconv

# Escaping modes (Go's encoding table): which bytes a part keeps unescaped.
PATH, PATH_SEGMENT, HOST, ZONE, USER_PASSWORD, QUERY_COMPONENT, FRAGMENT = range(7)
_ALNUM = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_HOST_EXTRA = frozenset(b"!$&'()*+,;=:[]<>\"")
_RESERVED = frozenset(b"$&+,/:;=?@")
_HEX = frozenset(b"0123456789abcdefABCDEF")


class URLError(ValueError):
    """A URL Go's ``url.Parse`` refuses: the text is its ``*url.Error``'s."""


class _Refused(Exception):
    """The reason under a URLError (``parse "<url>": <reason>``)."""


def should_escape(byte: int, mode: int) -> bool:
    """Go's ``shouldEscape`` (its generated table)."""
    if byte in _ALNUM:
        return False
    if mode in (HOST, ZONE) and byte in _HOST_EXTRA:
        return False
    if byte in b"-_.~":
        return False
    if byte in _RESERVED:
        if mode == PATH:
            return byte == 0x3F
        if mode == PATH_SEGMENT:
            return byte in b"/;,?"
        if mode == USER_PASSWORD:
            return byte in b"@/?:"
        if mode == QUERY_COMPONENT:
            return True
        if mode == FRAGMENT:
            return False
    return not (mode == FRAGMENT and byte in b"!()*")


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def _escape_error(raw: bytes) -> _Refused:
    return _Refused(f"invalid URL escape {gostrconv.quote(_text(raw))}")


def unescape(raw: bytes, mode: int) -> bytes:
    """Go's ``unescape``: ``%XX`` decoded (``+`` to a space in query components); hosts and
    zones refuse what they may not hold."""
    i = 0
    while i < len(raw):
        byte = raw[i]
        if byte == 0x25:
            if i + 2 >= len(raw) or raw[i + 1] not in _HEX or raw[i + 2] not in _HEX:
                raise _escape_error(raw[i:i + 3])
            value = int(raw[i + 1:i + 3], 16)
            if mode == HOST and value < 0x80 and raw[i:i + 3] != b"%25":
                raise _escape_error(raw[i:i + 3])
            if mode == ZONE and raw[i:i + 3] != b"%25" and value != 0x20 and should_escape(value, HOST):
                raise _escape_error(raw[i:i + 3])
            i += 3
            continue
        if mode in (HOST, ZONE) and byte < 0x80 and should_escape(byte, mode):
            raise _Refused(f"invalid character {gostrconv.quote(chr(byte))} in host name")
        i += 1
    if b"%" not in raw and not (mode == QUERY_COMPONENT and b"+" in raw):
        return raw
    out = bytearray()
    i = 0
    while i < len(raw):
        if raw[i] == 0x25:
            out.append(int(raw[i + 1:i + 3], 16))
            i += 3
            continue
        out.append(0x20 if raw[i] == 0x2B and mode == QUERY_COMPONENT else raw[i])
        i += 1
    return bytes(out)


def escape(raw: bytes, mode: int) -> bytes:
    """Go's ``escape`` (upper-case hex; a space is ``+`` in query components)."""
    out = bytearray()
    for byte in raw:
        if byte == 0x20 and mode == QUERY_COMPONENT:
            out.append(0x2B)
        elif should_escape(byte, mode):
            out += b"%%%02X" % byte
        else:
            out.append(byte)
    return bytes(out)


def path_unescape(text: str) -> str:
    """``url.PathUnescape``; raises :class:`ValueError` with Go's error text."""
    try:
        return _text(unescape(_bytes(text), PATH_SEGMENT))
    except _Refused as exc:
        raise ValueError(str(exc)) from None


class URL:
    """The parts of a parsed URL that callers read (strings as Go holds them). ``user`` is Go's
    ``*Userinfo``: None, or (name, password) with password None when none was given."""

    __slots__ = ("scheme", "opaque", "user", "host", "path", "raw_path", "raw_query", "fragment")

    def __init__(self) -> None:
        self.scheme = self.opaque = self.host = self.path = self.raw_path = self.raw_query = self.fragment = ""
        self.user: tuple[str, str | None] | None = None

    def is_abs(self) -> bool:
        return self.scheme != ""

    def hostname(self) -> str:
        """``URL.Hostname``: the host without its port and IPv6 brackets."""
        host = self.host
        colon = host.rfind(":")
        if colon != -1 and _valid_optional_port(_bytes(host[colon:])):
            host = host[:colon]
        if host.startswith("[") and host.endswith("]"):
            host = host[1:-1]
        return host

    def userinfo(self) -> str:
        """``Userinfo.String``: the escaped ``name[:password]`` ("" without a user)."""
        if self.user is None:
            return ""
        name, password = self.user
        text = _escaped(name, USER_PASSWORD)
        return text if password is None else f"{text}:{_escaped(password, USER_PASSWORD)}"

    def escaped_path(self) -> str:
        """``URL.EscapedPath``: the raw path when it is a valid encoding of the path."""
        raw = _bytes(self.raw_path)
        if raw and all(b in b"!$&'()*+,;=:@[]%" or not should_escape(b, PATH) for b in raw):
            try:
                if unescape(raw, PATH) == _bytes(self.path):
                    return self.raw_path
            except _Refused:
                pass
        return "*" if self.path == "*" else _escaped(self.path, PATH)

    def string(self) -> str:
        """``URL.String`` (no fragment is kept raw: the fragment is escaped afresh)."""
        out = []
        if self.scheme:
            out.append(self.scheme + ":")
        if self.opaque:
            out.append(self.opaque)
        else:
            if self.scheme or self.host or self.user is not None:
                if self.host or self.path or self.user is not None:
                    out.append("//")
                if self.user is not None:
                    out.append(self.userinfo() + "@")
                if self.host:
                    out.append(_escaped(self.host, HOST))
            path = self.escaped_path()
            if path and path[0] != "/" and self.host:
                out.append("/")
            if not out and ":" in path.partition("/")[0]:
                out.append("./")  # RFC 3986 4.2: not to be read as a scheme
            out.append(path)
        if self.raw_query:
            out.append("?" + self.raw_query)
        if self.fragment:
            out.append("#" + _escaped(self.fragment, FRAGMENT))
        return "".join(out)


def _escaped(text: str, mode: int) -> str:
    return _text(escape(_bytes(text), mode))


def parse(text: str) -> URL:
    """``url.Parse(text)``; raises :class:`URLError` with Go's text."""
    raw = _bytes(text)
    head, hash_sign, fragment = raw.partition(b"#")
    try:
        url = _parse(head)
    except _Refused as exc:
        raise URLError(f"parse {gostrconv.quote(_text(head))}: {exc}") from None
    if hash_sign and fragment:
        try:
            url.fragment = _text(unescape(fragment, FRAGMENT))
        except _Refused as exc:
            raise URLError(f"parse {gostrconv.quote(text)}: {exc}") from None
    return url


def _scheme(raw: bytes) -> tuple[bytes, bytes]:
    for i, byte in enumerate(raw):
        if 0x61 <= byte <= 0x7A or 0x41 <= byte <= 0x5A:
            continue
        if 0x30 <= byte <= 0x39 or byte in b"+-.":
            if i == 0:
                return b"", raw
            continue
        if byte == 0x3A:
            if i == 0:
                raise _Refused("missing protocol scheme")
            return raw[:i], raw[i + 1:]
        return b"", raw
    return b"", raw


def _parse(raw: bytes) -> URL:
    if any(byte < 0x20 or byte == 0x7F for byte in raw):
        raise _Refused("net/url: invalid control character in URL")
    url = URL()
    if raw == b"*":
        url.path = "*"
        return url
    scheme, rest = _scheme(raw)
    scheme = scheme.lower()
    url.scheme = _text(scheme)
    if rest.endswith(b"?") and rest.count(b"?") == 1:
        rest = rest[:-1]
    else:
        rest, _, query = rest.partition(b"?")
        url.raw_query = _text(query)
    if not rest.startswith(b"/"):
        if scheme:
            url.opaque = _text(rest)  # a rootless path
            return url
        if b":" in rest.partition(b"/")[0]:
            raise _Refused("first path segment in URL cannot contain colon")
    if (scheme or not rest.startswith(b"///")) and rest.startswith(b"//"):
        authority, slash, tail = rest[2:].partition(b"/")
        rest = slash + tail
        host, url.user = _authority(scheme, authority)
        url.host = _text(host)
    path = unescape(rest, PATH)
    url.path = _text(path)
    url.raw_path = "" if escape(path, PATH) == rest else _text(rest)
    return url


def _authority(scheme: bytes, authority: bytes) -> tuple[bytes, tuple[str, str | None] | None]:
    """The host and the user of ``user:password@host:port``."""
    at = authority.rfind(b"@")
    host = _host(scheme, authority[at + 1:])
    if at < 0:
        return host, None
    info = authority[:at]
    if not _valid_userinfo(info):
        raise _Refused("net/url: invalid userinfo")
    name, colon, password = info.partition(b":")
    user = _text(unescape(name, USER_PASSWORD))
    return host, (user, _text(unescape(password, USER_PASSWORD)) if colon else None)


def _valid_userinfo(info: bytes) -> bool:
    text = info.decode("utf-8", "replace")  # Go ranges over runes: a bad byte is U+FFFD
    return all(ch.isascii() and (ch.isalnum() or ch in "-._:~!$&'()*+,;=%@") for ch in text)


def _valid_optional_port(port: bytes) -> bool:
    return not port or port[:1] == b":" and all(0x30 <= b <= 0x39 for b in port[1:])


def _host(scheme: bytes, host: bytes) -> bytes:
    bracket = host.rfind(b"[")
    if bracket > 0:
        raise _Refused("invalid IP-literal")
    if bracket == 0:
        close = host.rfind(b"]")
        if close < 0:
            raise _Refused("missing ']' in host")
        colon_port = host[close + 1:]
        if not _valid_optional_port(colon_port):
            raise _Refused(f"invalid port {gostrconv.quote(_text(colon_port))} after host")
        port = unescape(colon_port, HOST)
        name = host[1:close]
        zone = name.find(b"%25")
        if zone >= 0:
            unescaped = unescape(name[:zone], HOST) + unescape(name[zone:], ZONE)
        else:
            unescaped = unescape(name, HOST)
        try:
            address = gonetip.parse_addr(_text(unescaped))
        except gonetip.AddrError as exc:
            raise _Refused(f"invalid host: {exc}") from None
        if address.is4:
            raise _Refused("invalid IP-literal")
        return b"[" + unescaped + b"]" + port
    first = host.find(b":")
    if first != -1:
        last = host.rfind(b":")
        cut = first if last != first and scheme in (b"http", b"https") else last
        colon_port = host[cut:]
        if not _valid_optional_port(colon_port):
            raise _Refused(f"invalid port {gostrconv.quote(_text(colon_port))} after host")
    return unescape(host, HOST)
