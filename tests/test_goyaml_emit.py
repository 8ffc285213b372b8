"""goyaml_emit, the ``toYaml`` writer without PyYAML: whatever it writes, libyaml's emitter path
(goyaml_write.emit_libyaml) writes byte for byte; whatever it cannot prove, it declines."""
from __future__ import annotations

import functools
import itertools
import os
import pickle
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import helm_core
from helm_core.golib import goyaml, goyaml_emit, goyaml_write
from tests import goyaml_corpus
from tests.chartkit import SHARED_CHARTS, chart_yaml, write_chart


def _json_step(value: Any) -> Any:
    """The value after its JSON step, or None (written by both) when Go refuses it (a NEL in a
    key, or in a string yaml.v2 then fails to read back)."""
    try:
        return goyaml.json_step(value)
    except ValueError:
        return None


def _check(plain: Any) -> bool:
    """Whether the fast writer took ``plain``; when it did, its text is libyaml's."""
    fast = goyaml_emit.emit(plain)
    if fast is None:
        return False
    assert fast == goyaml_write.emit_libyaml(plain), plain
    return True


# (value, text) the fast writer must take and write as libyaml does.
TAKEN = [
    ({"data": {"redis-password": "aB3dE5gH7j"}}, "data:\n  redis-password: aB3dE5gH7j\n"),
    ({"b": [], "a": {}, "c": [1, {"x": "y", "z": [[], [1, 2]]}]},
     'a: {}\nb: []\nc:\n- 1\n- x: "y"\n  z:\n  - []\n  - - 1\n    - 2\n'),
    ({"1": "", "true": "null", "t": "2020-01-01", "u": "1:20", "v": "0x1F", "w": "1e3"},
     '"1": ""\nt: "2020-01-01"\n"true": "null"\nu: "1:20"\nv: "0x1F"\nw: "1e3"\n'),
    ({"k": {"a": [{"b": {"c": 1.5}}]}, "n": None, "f": False, "i": -3, "g": 1e21},
     "f: false\ng: 1e+21\ni: -3\nk:\n  a:\n  - b:\n      c: 1.5\n\"n\": null\n"),
    ({"s": "-Xmx1g x#y a,b [c] {d} it's a:b http://h/p?q=1#f"},
     "s: -Xmx1g x#y a,b [c] {d} it's a:b http://h/p?q=1#f\n"),
    ({"a10": 1, "a9": 2, "B": 3, "_": 4}, "_: 4\nB: 3\na9: 2\na10: 1\n"),
    ({"long": "x" * 300}, "long: " + "x" * 300 + "\n"),  # no space: libyaml never folds it
    ({"c": {"s.sh": "#!/bin/sh\n\n  echo \"$1\" # x: y\n---\n", "t": "a\nb"}, "l": ["x\ny\n", {"k": "1\n2"}]},
     'c:\n  s.sh: |\n    #!/bin/sh\n\n      echo "$1" # x: y\n    ---\n  t: |-\n    a\n    b\nl:\n- |\n  x\n  y\n'
     '- k: |-\n    1\n    2\n'),
    ("multi\nline\n", "|\n  multi\n  line\n"),
    # single quotes where libyaml's analysis forbids plain text in a block
    ({" lead": "trail ", "a: b": "a #b", "-": "- x", "? x": ":", "{}": "'q'", "---x": "...x", "end:": "#x"},
     "' lead': 'trail '\n'-': '- x'\n'---x': '...x'\n'? x': ':'\n'{}': '''q'''\n'a: b': 'a #b'\n'end:': '#x'\n"),
    ([":x", "?x", "-x", "x:y", "a#b", "*x", "&x", "!x", "|x", ">x", '"q"', "%x", "@x", "`x", "[a]", ",x", "--"],
     "- :x\n- ?x\n- -x\n- x:y\n- a#b\n- '*x'\n- '&x'\n- '!x'\n- '|x'\n- '>x'\n- '\"q\"'\n- '%x'\n- '@x'\n"
     "- '`x'\n- '[a]'\n- ',x'\n- --\n"),
    ("text", "text\n"), (7, "7\n"), (None, "null\n"), ({}, "{}\n"), ([], "[]\n"), ([[]], "- []\n"),
]


@pytest.mark.parametrize(("value", "text"), TAKEN, ids=lambda v: repr(v)[:40])
def test_common_values_are_written_as_libyaml_writes_them(value, text):
    assert goyaml_emit.emit(value) == text
    assert goyaml_write.emit_libyaml(value) == text


@pytest.mark.parametrize("value", [
    {"a": {"b": ("word " * 30).strip() + "\n" + "x y " * 40 + "z\n"}},  # literal lines are never folded
    ["- " + "a b " * 30 + "c\nd"], {"k": "x\n\ny\n  z\n"}, {"k": "#!/bin/sh\n---\n...\n'q' \"q\" a: b #c\n"},
], ids=lambda v: repr(v)[:40])
def test_literal_blocks_are_written_as_libyaml_writes_them(value):
    assert _check(value)


# Values libyaml writes some other way (folding, escapes, literal blocks with hints, "? " keys).
DECLINED = ["tab\there",
            "\nlead", " lead\nx", "a \nb", "end \n", "keep\n\n", "\n", "tab\n\tx", "cr\r\nx", "caf\u00e9", "w " * 50,
            {"k" * 200: 1}, {"a\nb": 1}, [b"bytes"]]


@pytest.mark.parametrize("value", DECLINED, ids=lambda v: repr(v)[:40])
def test_what_libyaml_writes_otherwise_is_declined(value):
    assert goyaml_emit.emit(value) is None
    assert goyaml_emit.emit({"k": [value]}) is None


@functools.cache
def real_values() -> tuple[Any, ...]:
    """The value of every ``goyaml.dump`` call (``toYaml``, and the CLI's and post-render's
    writes), after its JSON step, while ``helm_core.template`` renders each chart of
    ../shared/charts and examples/charts; a value written again is listed again."""
    seen: list[Any] = []
    real_dump = goyaml.dump

    def recording(value: Any) -> str:
        text = real_dump(value)  # raises for what JSON cannot write
        seen.append(goyaml.json_step(value))
        return text

    goyaml.dump = recording  # type: ignore[assignment]
    try:
        for chart in goyaml_corpus.chart_folders():
            helm_core.template(chart, include_crds=True)
    finally:
        goyaml.dump = real_dump  # type: ignore[assignment]
    return tuple(seen)


def test_every_real_to_yaml_value_is_written_as_libyaml_writes_it():
    values = real_values()
    distinct = {pickle.dumps(v): v for v in values}
    taken = {key for key, v in distinct.items() if _check(v)}
    calls = sum(pickle.dumps(v) in taken for v in values)
    print(f"\nreal toYaml calls: {calls}/{len(values)} written without PyYAML ({calls / len(values):.1%}); "
          f"distinct values {len(taken)}/{len(distinct)}")
    assert values and taken


@pytest.mark.skipif(not SHARED_CHARTS.is_dir(), reason=f"{SHARED_CHARTS} is absent (HELM_CONTROLLER_SHARED_CHARTS)")
def test_most_real_to_yaml_calls_need_no_pyyaml():
    values = real_values()
    assert sum(goyaml_emit.emit(v) is not None for v in values) / len(values) > 0.8


# Parts of generated strings: what looks like another type, indicators, spaces, quotes, unicode.
_PARTS = ["a", "Z", "x9", "0", "1", "-1", "1.5", "1e3", ".5", "0x1F", "0o7", "017", "1_000", "y", "n", "yes",
          "No", "on", "OFF", "true", "False", "null", "~", ".inf", "-.Inf", ".nan", "<<", "2020-01-01",
          "2001-12-14t21:59:43.10-05:00", "1:20", "190:20:30.15", " ", "  ", ":", ": ", " :", "#", " #", "-",
          "- ", "?", "? ", "'", '"', "\\", ",", "[", "]", "{", "}", "&", "*", "!", "|", ">", "%", "@", "`",
          "---", "...", "\t", "\n", "\r", "\x85", "\u00e9", "\u2028", "\ufeff", "\U0001F600", "_", "/", "=",
          "+", "."]


#: Parts of text libyaml writes plain or as a literal block more often.
_TAME_PARTS = ["a", "Z", "x9", "0", "1", " ", " ", "\n", "\n", "-", "#", ":", "'", '"', "...", "{}", "=", "/"]


def _string(rng: random.Random) -> str:
    size = rng.choice([0, 1, 1, 2, 3, 5, 8, 20])
    parts = _TAME_PARTS if rng.random() < 0.5 else _PARTS
    text = "".join(rng.choice(parts) for _ in range(size))
    if rng.random() < 0.1:  # long, with and without spaces, some near the 80 columns where libyaml folds
        text += rng.choice(["x", "word ", "ab:c", " w"]) * rng.randint(10, 60)
    return text


def _value(rng: random.Random, depth: int) -> Any:
    kind = rng.random()
    if depth < 4 and kind < 0.35:
        return {_string(rng): _value(rng, depth + 1) for _ in range(rng.choice([0, 1, 2, 3, 5]))}
    if depth < 4 and kind < 0.55:
        return [_value(rng, depth + 1) for _ in range(rng.choice([0, 1, 2, 4]))]
    if kind < 0.65:
        return rng.choice([None, True, False, 0, -7, 2**63, 1.5, 1e21, 1e-7, 123456789.0, -0.5])
    return _string(rng)


def test_generated_values_are_written_as_libyaml_writes_them_or_declined():
    rng = random.Random(20)
    taken = sum(_check(_json_step(_value(rng, 0))) for _ in range(4000))
    print(f"\ngenerated values: {taken}/4000 written without PyYAML")
    assert taken > 400  # the generator reaches the subset often, not only its refusals


def test_mutated_real_values_are_written_as_libyaml_writes_them_or_declined():
    """Real values with one string, key or number replaced by a generated one."""
    rng = random.Random(21)
    values = [v for v in real_values() if isinstance(v, (dict, list)) and v] or [{"a": {"b": ["c"]}}]

    def mutate(value: Any) -> Any:
        if isinstance(value, dict):
            items = list(value.items())
            i = rng.randrange(len(items)) if items else 0
            if items and rng.random() < 0.3:
                items[i] = (_string(rng), items[i][1])
            elif items:
                items[i] = (items[i][0], mutate(items[i][1]))
            return dict(items)
        if isinstance(value, list) and value:
            i = rng.randrange(len(value))
            return value[:i] + [mutate(value[i])] + value[i + 1:]
        return _value(rng, 3)

    taken = sum(_check(_json_step(mutate(rng.choice(values)))) for _ in range(3000))
    print(f"\nmutated real values: {taken}/3000 written without PyYAML")
    assert taken > 300


def test_a_warm_cli_run_with_a_new_to_yaml_value_imports_no_pyyaml(tmp_path: Path) -> None:
    """A random password written by toYaml each run: the memo cannot hold it, the fast writer does."""
    chart = write_chart(tmp_path / "src", {
        "Chart.yaml": chart_yaml("c"),
        "values.yaml": "labels:\n  tier: web\n",
        "templates/secret.yaml": "kind: Secret\nstringData:\n{{- dict \"p\" (randAlphaNum 10) | toYaml | nindent 2 }}\n"
                                 "labels: {{- toYaml .Values.labels | nindent 2 }}\n"})
    script = ("import sys; from helm_core import cli; code = cli.main(['template', 'x', sys.argv[1]]); "
              "print('pyyaml' if 'yaml' in sys.modules else 'no pyyaml', file=sys.stderr); sys.exit(code)")
    env = dict(os.environ, HELM_CORE_CACHE=str(tmp_path / "cache"))
    runs = [subprocess.run([sys.executable, "-c", script, str(chart)], capture_output=True, text=True, env=env,
                           check=False) for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr
    passwords = [line for r in runs for line in r.stdout.splitlines() if line.startswith("  p: ")]
    assert len(passwords) == 2 and passwords[0] != passwords[1]  # a new value each run
    assert runs[1].stderr.strip().splitlines()[-1] == "no pyyaml"


def test_lines_near_libyaml_fold_and_key_limits_are_written_as_libyaml_writes_them_or_declined():
    """Strings with spaces around column 80 (libyaml folds there), keys around 128 characters
    (longer ones become "? " keys), at several depths; plain, single- and double-quoted."""
    taken = 0
    for depth in range(4):
        for key_size in (1, 9, 30, 120, 125, 126, 127, 128, 129):
            for size in range(60, 92):
                for text in ("a b".ljust(size, "c"), "a" * (size - 2) + " b", "1 ".ljust(size, "2") + ":30",
                             "- a#b: c".ljust(size, "d"), "0".ljust(size, "0")):
                    value: Any = {"k" * key_size: text}
                    for _ in range(depth):
                        value = {"o": [value]}
                    taken += _check(value)
    assert taken > 500


# String checks against the patterns they stand in for (exhaustive over the characters that matter).
_OLD_SAFE = re.compile(r"[ -~]*")
_OLD_PLAIN_START = re.compile(r"[#,\[\]{}&*!|>'\"%@`]|[-?:](?: |$)|---|\.\.\.")
_OLD_BASE60_FLOAT = re.compile(r"^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$")


def test_safe_text_is_printable_ascii_as_the_class_said():
    chars = [chr(c) for c in range(160)] + ["\u00e9", "\u2028", "\ud800", "\U00010000"]
    for text in ["", *chars, *(a + b for a in chars for b in chars)]:
        assert goyaml_emit._safe(text) == (_OLD_SAFE.fullmatch(text) is not None), ascii(text)


def test_plain_start_is_the_pattern():
    chars = "#,[]{}&*!|>'\"%@`-?:. \na\t"
    for text in ("".join(t) for n in range(5) for t in itertools.product(chars, repeat=n)):
        assert goyaml_emit._plain_start(text) == (_OLD_PLAIN_START.match(text) is not None), repr(text)


def test_base60_floats_are_quoted_as_the_pattern_said():
    for text in ("".join(t) for n in range(7) for t in itertools.product("1:5_.-a", repeat=n)):
        if "\n" not in text:
            expected = goyaml_emit.rules.resolve(text)[0] != goyaml_emit.rules.TAG_STR or bool(
                _OLD_BASE60_FLOAT.match(text))
            assert (goyaml_emit.string_style(text) == '"') == expected, text
