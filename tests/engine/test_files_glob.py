""".Files.Glob: gobwas/glob v0.2.3 as Helm compiles it (separator '/', fallback "**"), answer for
answer (table printed by gobwas itself), in linear time for patterns that make a backtracking
regex engine hang."""
from __future__ import annotations

import pytest

from helm_core.engine.files import Files, compile_glob

LONG = "a" * 3000
NAMES = ["a.txt", "conf/a.yaml", "conf/sub/b.yaml", "c,d", "x}", "a-b", "]", "a/b", "é.txt",
         "files/" + LONG, "files/" + LONG + "!", "{a}", "ab", ""]
ALL = " ".join(str(i) for i in range(len(NAMES)))

#: pattern -> indexes of NAMES that gobwas matches. Not listed, because gobwas's fixed-length
#: matcher cuts a multi-byte character matched by ``?`` or ``[...]`` at its first byte (a bug:
#: ``?.txt`` does not match ``é.txt``) and ``***`` does not match "": helm-core matches those.
GOBWAS = {
    "*": "0 3 4 5 6 8 11 12 13",
    "**": ALL,
    "conf/*": "1",
    "conf/**": "1 2",
    "*.txt": "0 8",
    "[a-c].txt": "0",
    "[a-z0-9]*": ALL,  # one range or one list per [...]: this does not compile, so "**"
    "[abc]*": "0 3 5 12",
    "[!]": ALL,
    "[]": ALL,
    "[a-]": ALL,
    "[z-a]": ALL,
    "{a,conf}*": "0 5 12",
    "{a,conf/**": "1 2",  # an unclosed { ends with the pattern
    "c,d": "3",
    "x}": "4",
    "a\\-b": "5",
    "\\]": "6",
    "a[/]b": "7",  # classes may match the separator
    "a?b": "5",
    "{a*,b}.txt": "0",
    "{}": "13",
    "{a,}b": "12",
    "[\\]]": "6",
    "a\\": "",
    "{{a,b},c}b": "12",
    "[!!]*": "0 3 4 5 6 8 11 12",
    "files/*a*a*a*a*a*a*a*a*a*a*a*a!": "10",
    "files/**a**a**a**a**a**a**a**a**a**a**a**a!": "10",
}


@pytest.mark.timeout(60)  # the last two patterns are O(n^12) for a backtracking engine
@pytest.mark.parametrize("pattern", list(GOBWAS))
def test_glob_matches_as_gobwas(pattern: str):
    glob = compile_glob(pattern)
    assert " ".join(str(i) for i, name in enumerate(NAMES) if glob.match_string(name)) == GOBWAS[pattern]


@pytest.mark.timeout(60)
def test_files_glob_with_a_hostile_pattern():
    files = Files({f"files/{LONG}": b"x", f"files/{LONG}!": b"y", "b.txt": b"z"})
    assert list(files.Glob("files/*a*a*a*a*a*a*a*a*a*a*a*a!").values()) == [b"y"]
