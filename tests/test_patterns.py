"""helm_core.support.patterns: patterns compiled from their prebuilt engine code (sre_codes.py)."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from helm_core.support import patterns, sre_codes

ROOT = Path(__file__).resolve().parents[1]


def test_the_table_is_current_and_made_for_this_engine() -> None:
    # Every declared pattern is in it, with what re's compiler gives now: run
    # scripts/gen_sre_codes.py after adding or changing one. (A fresh process: imports every module.)
    out = subprocess.run(
        [sys.executable, "-c", "from helm_core.support import sre_prebuild as p; "
         "print(p.prebuilt_module_source(p.declared_everywhere()), end='')"],
        cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out == (ROOT / "helm_core" / "support" / "sre_codes.py").read_text()
    assert sre_codes.ENGINE == patterns.engine()


@pytest.mark.parametrize("key", sorted(sre_codes.CODES), ids=lambda key: repr(key[0])[:40])
def test_a_prebuilt_pattern_is_the_one_re_compiles(key: tuple[str, int]) -> None:
    pattern, flags = key
    built = patterns._prebuilt(pattern, flags)
    expected = re.compile(pattern, flags)
    assert built is not None and built is not expected  # made from the table, not re's cache
    # Patterns compare equal when their pattern, flags and engine code are the same.
    assert built == expected
    assert (built.groups, built.groupindex, built.flags) == (expected.groups, expected.groupindex, expected.flags)


def test_the_lexer_stream_pattern_lexes_as_re_compiles_it() -> None:
    from helm_core.gotemplate import lexer

    text = '{{- if .Values.a.b }}x: {{ include "n" (dict "k" $v) | quote }}{{ end -}}\n'
    stream = lexer._STREAM[True]()
    assert stream.findall(text, 4) == re.compile(stream.pattern).findall(text, 4)
    assert stream.findall(text, 4)[:5] == ["if ", ".Values.a.b ", "}}x: {{", " ", "include "]


def test_other_engines_and_refused_code_compile_with_re(monkeypatch: pytest.MonkeyPatch) -> None:
    pattern, flags = next(iter(sre_codes.CODES))
    monkeypatch.setattr(patterns, "_table", lambda: {})  # a table made for another engine
    assert patterns._prebuilt(pattern, flags) is None
    assert patterns.compiled(pattern, flags) == re.compile(pattern, flags)
    final_flags, code, groups, groupindex, indexgroup = sre_codes.CODES[pattern, flags]
    broken = {(pattern, flags): (final_flags, b"\xff\xff\x00\x00" + code, groups, groupindex, indexgroup)}
    monkeypatch.setattr(patterns, "_table", lambda: broken)
    assert patterns._prebuilt(pattern, flags) is None  # the engine refuses the code
    assert patterns.compiled(pattern, flags) == re.compile(pattern, flags)


def test_the_table_is_for_this_engine_only(monkeypatch: pytest.MonkeyPatch) -> None:
    patterns._table.cache_clear()
    try:
        monkeypatch.setattr(sre_codes, "ENGINE", ("cpython", (3, 99), 0, 4))
        assert patterns._table() == {}
    finally:
        monkeypatch.undo()
        patterns._table.cache_clear()
    assert patterns._table() is sre_codes.CODES
