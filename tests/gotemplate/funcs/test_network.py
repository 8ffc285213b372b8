"""urlParse/urlJoin port net/url; getHostByName never resolves (Helm's default)."""
from __future__ import annotations

import pytest

from helm_core.gotemplate.funcs import network as net
from helm_core.golib.gotypes import FuncError


def test_url_parse_decodes_path_and_fragment_keeps_query_raw() -> None:
    assert net.url_parse("https://u%20x:p@h.example:8080/a%20b/c?x=1&y=%20#fr%20ag") == {
        "scheme": "https", "host": "h.example:8080", "hostname": "h.example", "path": "/a b/c",
        "query": "x=1&y=%20", "opaque": "", "fragment": "fr ag", "userinfo": "u%20x:p"}


PARSE = [
    ("opaque", "mailto:joe@x.com", {"scheme": "mailto", "opaque": "joe@x.com", "path": ""}),
    ("relative", "/rel/path?q", {"scheme": "", "path": "/rel/path", "query": "q"}),
    ("empty", "", {"scheme": "", "host": "", "path": ""}),
    ("scheme_lowercased", "HTTP://H/", {"scheme": "http", "host": "H", "path": "/"}),
    ("ipv6_hostname", "http://[::1]:80/", {"host": "[::1]:80", "hostname": "::1"}),
]


@pytest.mark.parametrize(("url", "subset"), [c[1:] for c in PARSE], ids=[c[0] for c in PARSE])
def test_url_parse_fields(url: str, subset: dict[str, str]) -> None:
    parsed = net.url_parse(url)
    assert {k: parsed[k] for k in subset} == subset


PARSE_ERRORS = [
    ("colon_in_first_segment", "a b:/x", 'unable to parse url: parse "a b:/x": first path segment in URL cannot contain colon'),
    ("bad_escape", "http://x/%zz", 'unable to parse url: parse "http://x/%zz": invalid URL escape "%zz"'),
    ("missing_scheme", ":x", 'unable to parse url: parse ":x": missing protocol scheme'),
    ("control_char", "http://x/\n", 'unable to parse url: parse "http://x/\\n": net/url: invalid control character in URL'),
]


@pytest.mark.parametrize(("url", "message"), [c[1:] for c in PARSE_ERRORS], ids=[c[0] for c in PARSE_ERRORS])
def test_url_parse_errors(url: str, message: str) -> None:
    with pytest.raises(FuncError) as err:
        net.url_parse(url)
    assert str(err.value) == message


JOIN = [
    ("full", {"scheme": "https", "host": "h:1", "path": "a b/c", "query": "q=1", "fragment": "f g!",
              "userinfo": "user:p%40ss"}, "https://user:p%40ss@h:1/a%20b/c?q=1#f%20g!"),
    ("colon_path_gets_dot_slash", {"path": "a:b"}, "./a:b"),
    ("opaque", {"scheme": "x", "opaque": "o"}, "x:o"),
    ("escapes_query_and_hash_in_path", {"path": "/a?b#c", "fragment": "x#y/?z"}, "/a%3Fb%23c#x%23y/?z"),
    ("empty", {}, ""),
]


@pytest.mark.parametrize(("parts", "expected"), [c[1:] for c in JOIN], ids=[c[0] for c in JOIN])
def test_url_join(parts: dict[str, str], expected: str) -> None:
    assert net.url_join(parts) == expected


JOIN_ERRORS = [
    ("non_string", {"host": 1}, "unable to parse host key, must be of type string, but int found"),
    ("bad_userinfo", {"userinfo": "us er:p@ss"},
     'unable to parse userinfo in dict: parse "proto://us er:p@ss@host": net/url: invalid userinfo'),
]


@pytest.mark.parametrize(("parts", "message"), [c[1:] for c in JOIN_ERRORS], ids=[c[0] for c in JOIN_ERRORS])
def test_url_join_errors(parts, message: str) -> None:
    with pytest.raises(FuncError) as err:
        net.url_join(parts)
    assert str(err.value) == message


def test_get_host_by_name_does_no_lookup() -> None:
    assert net.get_host_by_name("localhost") == ""
