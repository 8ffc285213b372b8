"""goyaml_block, the block YAML reader without PyYAML: whatever it takes, it reads exactly as
the PyYAML (libyaml) path does; whatever it cannot prove, it declines."""
from __future__ import annotations

import math
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from helm_core.golib import goyaml_block, goyaml_read
from tests import goyaml_corpus
from tests.chartkit import SHARED_CHARTS
from tests.test_goyaml import TRICKY_YAML, aliasing_cases

ROOT = Path(__file__).resolve().parents[1]


def _fast(text: str, *, json_step: bool = True):
    value = goyaml_block.decode(text, json_step=json_step)
    assert value is not goyaml_block.DECLINED, f"declined {text!r}"
    return value


# (text, value) the block reader must take, and give as Helm does (checked against PyYAML too).
CORNERS = [
    # yaml.v2's YAML 1.1 scalars: y/n/on/off are booleans, 0o/0/0x integers, floats without a dot
    ("a: y\nb: n\nc: on\nd: Off\ne: YES\nf: yEs", {"a": True, "b": False, "c": True, "d": False, "e": True,
                                                  "f": "yEs"}),
    ("a: 0o17\nb: 017\nc: 0x1F\nd: 0b101\ne: 08\nf: 1_000", {"a": 15.0, "b": 15.0, "c": 31.0, "d": 5.0, "e": 8.0,
                                                           "f": 1000.0}),
    ("a: 1e3\nb: .5\nc: -1.5e-3\nd: +1\ne: 1e400\nf: 1.2.3", {"a": 1000.0, "b": 0.5, "c": -0.0015, "d": 1.0,
                                                            "e": "1e400", "f": "1.2.3"}),
    ("a: ~\nb: null\nc:\nd: ''\ne: \"\"\nf: NULL", {"a": None, "b": None, "c": None, "d": "", "e": "", "f": None}),
    ("a: 2020-01-01\nb: 12:30\nc: <<", {"a": "2020-01-01", "b": "12:30", "c": "<<"}),
    # keys are typed, then named as sigs.k8s.io/yaml names them
    ("1: a\ntrue: b\nyes: c\n1.5: d\n0x10: e\n'1': f\n123456789.123: g",
     {"1": "f", "true": "c", "1.5": "d", "16": "e", "1.2345679e+08": "g"}),
    # a duplicate key keeps its first place and its last value
    ("a: 1\nb: 2\na: 3", {"a": 3.0, "b": 2.0}),
    ("a:\n  b: 1\n  c:\n    - x\n    - k: z\n      w: v\nd: e", {"a": {"b": 1.0, "c": ["x", {"k": "z", "w": "v"}]},
                                                               "d": "e"}),
    ("a:\n- 1\n- b: 2\n  c: 3\nd: x", {"a": [1.0, {"b": 2.0, "c": 3.0}], "d": "x"}),  # '- ' at the key's column
    ("- - a\n  - b\n- -   c\n-\n  - d\n-\n- e: f", [["a", "b"], ["c"], ["d"], None, {"e": "f"}]),
    ("  a: 1\n  b:\n      c: 2\n", {"a": 1.0, "b": {"c": 2.0}}),  # a root deeper than column 0
    ("# head\n---  # start\na: 1 # one\nb: x#y\n# tail\n...\nthen: ignored", {"a": 1.0, "b": "x#y"}),
    ("a: 1\n--- # the second document is not read\n[", {"a": 1.0}),
    ("a: ' #x' # c\nb: \" #y\"\nc: 'it''s'\ne: b:c\nf: http://x/y?z=1#frag\ng: -x\nh: x - y",
     {"a": " #x", "b": " #y", "c": "it's", "e": "b:c", "f": "http://x/y?z=1#frag", "g": "-x", "h": "x - y"}),
    ('a: "\\t\\n\\\\\\"\\/\\x41\\u00e9\\U0001F600\\0\\e\\N\\_\\L\\P\\ "',
     {"a": "\t\n\\\"/A\u00e9\U0001F600\0\x1b\x85\xa0\u2028\u2029 "}),
    ("'a b': 1\n\"c\" : 2", {"a b": 1.0, "c": 2.0}),
    ("a: {}\nb: []\nc: [ ]\nd: [x, 'y', \"z\", 1, yes, a b]\ne:\n  {}\n", {"a": {}, "b": [], "c": [], "d": [
        "x", "y", "z", 1.0, True, "a b"], "e": {}}),
    ("a: multi\n  line\n\n\n  plain\nb: x", {"a": "multi line\n\nplain", "b": "x"}),
    ("a:\n  on the next line\n  and the one after\n", {"a": "on the next line and the one after"}),
    # block scalars: indentation found from the first line, chomping, folding of equally indented lines
    ("a: |\n  x\n   y\n\n  z\n\n\nb: 1", {"a": "x\n y\n\nz\n", "b": 1.0}),
    ("a: |-\n  x\n\nb: |+\n  x\n\n\nc: |\nd: >\n  one\n  two\n\n  three\n   four\n  five\n",
     {"a": "x", "b": "x\n\n\n", "c": "", "d": "one two\nthree\n four\nfive\n"}),
    ("a: >-\n\n  x\n  y\n\n", {"a": "\nx y"}),
    ("- |2\n    x\n   y\n- >1-\n  z\n", ["  x\n y\n", " z"]),
    ("a: |\n  # not a comment\n  x\n# a comment\nb: |\n  no final newline", {"a": "# not a comment\nx\n",
                                                                         "b": "no final newline"}),
    ("a: |\n  x\n   \n  \nb: 1", {"a": "x\n \n", "b": 1.0}),
    ("", None),
    ("# only a comment\n\n", None),
    ("---\n", None),
    ("{}", {}),
]


@pytest.mark.parametrize(("text", "expected"), CORNERS, ids=lambda v: repr(v)[:40])
def test_corners_read_as_the_pyyaml_path_reads_them(text, expected):
    assert goyaml_corpus.same(_fast(text), expected)
    assert goyaml_corpus.compare(text) == goyaml_corpus.compare(text, json_step=False) == "same"


def test_the_converter_errors_are_the_pyyaml_paths():
    """A null key, NaN through JSON: the block reader raises what the PyYAML path raises."""
    for text in ("~: 1", "a:\n  null: x", "a: .nan", "a: [.inf]"):
        with pytest.raises(ValueError) as fast:
            goyaml_block.decode(text)
        with pytest.raises(ValueError) as full:
            goyaml_read.decode(text)
        assert str(fast.value) == str(full.value) and str(fast.value).startswith("error converting YAML to JSON: ")
    assert math.isnan(_fast("a: .nan", json_step=False)["a"])
    assert _fast("a: 1\nb: 1.5", json_step=False) == {"a": 1, "b": 1.5} and type(_fast("a: 1", json_step=False)["a"]) is int


#: libyaml's errors (the block reader must not take these) and texts outside the subset.
ERRORS = ["a: b: c", "a: b :", "a: 1\n  b: 2", "a:\n  - 1\n - 2", "a:\n    b: 1\n  c: 2", "- a\nb: 1", "a: 1\n- b",
          "a: 'x", 'a: "x', 'a: "x\\', "a: [1, 2", "a: @x", "a: `x", "a: %x", 'a: "\\q"', 'a: "\\ud800"', '"a"x: 1',
          "a: |\n  x\n b: 1", "a: |0\n  x", "a: |\n   \n  x\n", "a: x\n  # c\n  y", "a: [a,, b]",
          "a: - b", "a: b\n c: d", "a: |-+\n x", "a: 'x' y", "k" * 1030 + ": v"]
OUTSIDE = ["a: !!str 1", "%YAML 1.1\n---\na: 1", "? a\n: b", "a: {b: 1}", "a: [a, b,]",
           "a:\t1", "a: 1\r\n", "a: x\u2028y", "\ufeffa: 1", "a: 'multi\n  line'", "scalar", "a: [\n  1]",
           "[a]: 1", "a: [x: 1]", "...\na: 1", "a # c: 1", "---x\n", "- " * 3000 + "a",
           "a:\n" + "".join(" " * i + "k:\n" for i in range(1, 200)), "a: |#c\n x", "a: 'x'#c", "<<: {a: 1}"]
#: Anchors and aliases libyaml or yaml.v2 refuses: an alias to an anchor not yet defined or to the
#: value it is in (a self reference, through a merge or a later definition too), a property on
#: an alias, a name followed by another character, text after an alias.
ERRORS += ["a: *x\nb: &x 1", "a: &x\n  b: *x", "a: &x\n  - *x", "a: &x\n  b: 1\n  <<: *x", "a: &x 1\nb: &x\n  c: *x",
           "a: &x 1\nb: &x [*x]", "a: &x 1\nb: &y *x", "a: &x 1\nb: *x#c", "a: &x#c 1", "a: & 1", "a: * ",
           "a: &x 1\nb: *x\n  c", "a: &x 1\nb: *x y"]
#: Forms libyaml reads that the block reader leaves to it: anchors on keys, aliases as keys,
#: anchors and aliases on their own row, tags beside anchors, names with other characters,
#: anchors on documents and after '- k:' forms that anchor a key, an alias to a name defined again
#: inside the value it names (yaml.v2 reads the inner definition).
OUTSIDE += ["a: &x\n  b: &x 1\n  c: *x", "&x a: 1\nb: *x", "a: &x 1\n*x : 2", "- &x k: v\n- *x", "a:\n  &x 1\nb: *x", "a: &x 1\nb:\n  *x",
            "a: &x !!str 1", "a: !!str &x 1", "a: &x:1 1", "a: &\u00e9 1", "--- &x\na: 1", "&x\na: 1",
            "a: &x 1\nb: [*x: 1]", "a: &x 1\nb: [*x :]",
            "a: [&x 1, *x]", "a: &x {b: *x}"]


@pytest.mark.parametrize("text", ERRORS + OUTSIDE, ids=lambda v: repr(v)[:40])
def test_errors_and_texts_outside_the_subset_are_declined(text):
    assert goyaml_block.decode(text) is goyaml_block.DECLINED
    if text in ERRORS:
        with pytest.raises(ValueError):
            goyaml_read.decode(text)


#: (text, value) with anchors and aliases the block reader must take (checked against PyYAML too):
#: anchors before inline values and alone before the value below (a block collection, a
#: sequence at its key's column, a scalar, nothing), aliases as whole values and in one-line
#: flow sequences, merge keys.
ANCHORED = [
    ("a: &x 1\nb: *x", {"a": 1.0, "b": 1.0}),
    ("a: &x-y_9 'q' # c\nb: *x-y_9 # c\nc:   *x-y_9", {"a": "q", "b": "q", "c": "q"}),
    ("a: &x\n  b: 1\nc: *x", {"a": {"b": 1.0}, "c": {"b": 1.0}}),
    ("a: &x # c\n- 1\n- k: v\nb: *x", {"a": [1.0, {"k": "v"}], "b": [1.0, {"k": "v"}]}),
    ("a: &x\nb: *x\nc: &y # c\nd: [*y]", {"a": None, "b": None, "c": None, "d": [None]}),
    ("- &x\n- *x\n- &y k\n- *y\n- &z\n  k: v\n- *z\n- &w\n  - 1\n- *w",
     [None, None, "k", "k", {"k": "v"}, {"k": "v"}, [1.0], [1.0]]),
    ("a: &x [1, b]\nb: *x\nc: &y {}\nd: [*x, *y,*y ]", {"a": [1.0, "b"], "b": [1.0, "b"], "c": {},
                                                       "d": [[1.0, "b"], {}, {}]}),
    ("a: &x |\n  t\nb: &y >-\n  u\n  v\nc: [*x, *y]", {"a": "t\n", "b": "u v", "c": ["t\n", "u v"]}),
    ("a: &x foo\n  bar\nb: &y\n  baz\nc: [*x, *y]", {"a": "foo bar", "b": "baz", "c": ["foo bar", "baz"]}),
    ("a: &x \"q\\n\"\nb: &y -1\nc: &z yes\nd: [*x, *y, *z]", {"a": "q\n", "b": -1.0, "c": True,
                                                               "d": ["q\n", -1.0, True]}),
    ("k: &x\n  a: &y 1\n  b: *y\nl: *x", {"k": {"a": 1.0, "b": 1.0}, "l": {"a": 1.0, "b": 1.0}}),
    # an anchor defined again names the later node for the aliases after it (yaml.v2)
    ("a: &x 1\nb: *x\nc: &x 2\nd: *x", {"a": 1.0, "b": 1.0, "c": 2.0, "d": 2.0}),
    ("a: &x\n  b: &x 1\nc: *x", {"a": {"b": 1.0}, "c": 1.0}),
    ("a: &x\n  b: &x\n    k: 1\nc: [*x]", {"a": {"b": {"k": 1.0}}, "c": [{"k": 1.0}]}),
    ("- &x a\n- [*x, *x]\n- - *x", ["a", ["a", "a"], ["a"]]),
    # merge keys: the mapping's own keys win, earlier merged maps win over later ones
    ("base: &b\n  x: 1\n  k: 2\nc:\n  <<: *b\n  k: 3", {"base": {"x": 1.0, "k": 2.0}, "c": {"x": 1.0, "k": 3.0}}),
    ("a: &a\n  x: 1\nb: &b\n  x: 2\n  w: 2\nc:\n  <<: [*a, *b]\n  z: 3",
     {"a": {"x": 1.0}, "b": {"x": 2.0, "w": 2.0}, "c": {"x": 1.0, "w": 2.0, "z": 3.0}}),
    ("a: &a {}\n- &s\n  - 1", None),  # a libyaml error after an anchor (compared below, not taken)
    # prometheus' alertmanager values
    ("containerPortName: &containerPortName http\nservice:\n  port: 9093\nports:\n  - name: *containerPortName\n"
     "    port: 9093\n", {"containerPortName": "http", "service": {"port": 9093.0},
                        "ports": [{"name": "http", "port": 9093.0}]}),
]
ANCHORED = [(text, value) for text, value in ANCHORED if value is not None]


@pytest.mark.parametrize(("text", "expected"), ANCHORED, ids=lambda v: repr(v)[:40])
def test_anchors_and_aliases_read_as_the_pyyaml_path_reads_them(text, expected):
    assert goyaml_corpus.same(_fast(text), expected)
    assert goyaml_corpus.compare(text) == goyaml_corpus.compare(text, json_step=False) == "same"


def _collection_lines(node) -> list[tuple[str, int]]:
    """(kind, start line) of every collection under ``node``, depth first, each node once."""
    out: list[tuple[str, int]] = []
    seen: set[int] = set()

    def walk(n) -> None:
        if isinstance(n, str) or n.id == "scalar" or id(n) in seen:  # a str: the block reader's plain scalar
            return
        seen.add(id(n))
        out.append((n.id, n.start_mark.line))
        for child in n.value:
            for part in (child if n.id == "mapping" else (child,)):
                walk(part)

    walk(node)
    return out


def test_an_anchored_collection_starts_at_its_anchor_as_in_libyaml():
    """The converter names the line of a collection nested past yaml.v2's depth: libyaml's
    mark of an anchored collection is its anchor's, not its first row's."""
    for text, _ in ANCHORED:
        expected = _collection_lines(next(goyaml_read._documents(text)))
        assert _collection_lines(goyaml_block._Reader(text).document()) == expected, text


def test_the_alias_accounting_runs_only_for_documents_with_aliases(monkeypatch):
    """An anchor without an alias meets no node twice: the converter's fast path stays."""
    calls = []
    real = goyaml_block.goyaml_convert.convert

    def recording(node, *, json_step, anchors=True):
        calls.append(anchors)
        return real(node, json_step=json_step, anchors=anchors)

    monkeypatch.setattr(goyaml_block.goyaml_convert, "convert", recording)
    for text in ("a: 1", "a: &x 1", "a: &x 1\nb: *x", "a: &x 1\nb: [*x]"):
        _fast(text)
    assert calls == [False, False, True, True]


def _laughs(levels: int, width: int, *, block: bool) -> str:
    """The billion laughs: each level an anchored sequence of ``width`` aliases to the one before."""
    def sequence(items: list[str]) -> str:
        return "".join(f"\n  - {item}" for item in items) if block else " [" + ", ".join(items) + "]"

    lines = [f"l0: &l0{sequence(['lol'] * width)}"]
    lines += [f"l{k}: &l{k}{sequence([f'*l{k - 1}'] * width)}" for k in range(1, levels + 1)]
    return "\n".join(lines)


@pytest.mark.parametrize("block", [False, True])
def test_alias_bombs_fail_as_the_pyyaml_path_fails(block):
    for levels in (2, 3, 9):
        text = _laughs(levels, 9, block=block)
        assert goyaml_corpus.compare(text) == goyaml_corpus.compare(text, json_step=False) == "same"
    with pytest.raises(ValueError, match="^error converting YAML to JSON: yaml: document contains excessive aliasing$"):
        goyaml_block.decode(_laughs(9, 9, block=block))
    assert len(_fast(_laughs(2, 9, block=block))["l2"]) == 9


def test_the_aliasing_bound_is_the_pyyaml_paths_on_both_sides():
    """test_goyaml's documents around yaml.v2's bound (compared with helm there): the block
    reader takes those without flow mappings, refusing some, and answers as the PyYAML path."""
    cases = aliasing_cases()
    answers = [goyaml_corpus.compare(text) for text in cases]
    assert None not in answers and answers.count("same") == 10
    assert {isinstance(_outcome(text), str) for text, answer in zip(cases, answers, strict=True)
            if answer == "same"} == {True, False}


def _outcome(text: str):
    try:
        return goyaml_block.decode(text)
    except ValueError as exc:
        return str(exc)


def test_declined_anchors_fail_or_read_through_the_facade_as_through_pyyaml():
    """What the block reader declines, goyaml.decode reads with PyYAML: the same answer."""
    for text in ("a: &x\n  b: *x", "a: &x\n  b: 1\n  <<: *x", "a: &x\n  b: &x 1\n  c: *x", "&x a: 1\nb: *x"):
        assert goyaml_block.decode(text) is goyaml_block.DECLINED
        facade = _facade_outcome(text)
        try:
            full = goyaml_read.decode(text)
        except ValueError as exc:
            full = str(exc)
        assert facade == full


def _facade_outcome(text: str):
    from helm_core.golib import goyaml
    try:
        return goyaml.decode(text)
    except ValueError as exc:
        return str(exc)


ANCHOR_DOCUMENTS = 1500


def _anchor_document(rng: random.Random) -> str:
    """Mappings and sequences whose values are anchored (inline or before the rows below),
    aliases (mostly to anchors defined before; else to ones being read, defined later or never),
    merge keys; now and then an anchor defined again or a piece the reader leaves to libyaml."""
    lines: list[str] = []
    defined: list[str] = []
    being_read: list[str] = []

    def anchor() -> str:
        if defined and rng.random() < 0.05:
            return rng.choice(defined)
        name = rng.choice(["a", "x-", "y_", "Z9"]) + str(len(lines))
        return name

    def alias() -> str:
        r = rng.random()
        if defined and r < 0.95:
            return "*" + rng.choice(defined)
        if being_read and r < 0.98:
            return "*" + rng.choice(being_read)
        return "*never" if r > 0.9 else "v"

    def value(indent: int, depth: int) -> None:
        r = rng.random()
        name = anchor()
        if r < 0.3:
            lines[-1] += rng.choice([f" &{name} v", f" &{name} 1", f" &{name} [1, {alias()}]", f" &{name} ''",
                                     f" &{name} |", f" &{name}", f" &{name} # c", f" &{name} {{}}"])
            if lines[-1].endswith("|"):
                lines.append(" " * indent + "text")
            defined.append(name)
        elif r < 0.55:
            lines[-1] += rng.choice([f" {alias()}", f" {alias()} # c", f" [{alias()}, {alias()}]"])
        elif r < 0.85 and depth < 5:
            anchored = rng.random() < 0.7
            lines[-1] += rng.choice([f" &{name}", f" &{name} # c"]) if anchored else ""
            being_read.append(name)
            block(indent + rng.choice([-2, 0, 0]) if lines[-1].lstrip().startswith("-") else indent,
                  rng.random() < 0.4, depth + 1)
            being_read.pop()
            if anchored:
                defined.append(name)
        else:
            lines[-1] += rng.choice([" v", " 1", " ~", ""])

    def block(indent: int, sequence: bool, depth: int) -> None:
        pad = " " * max(indent, 0)
        for i in range(rng.randint(1, 3)):
            lines.append(pad + ("-" if sequence else rng.choice(["k", "<<", "<<", f"k{i}"]) + ":"))
            value(max(indent, 0) + 2, depth)
            if rng.random() < 0.03:
                lines.append(pad + rng.choice(["  *a0", "&a0 k: v", "*a0 : v", "- &a0 k: v", "  &b v", "!!str &a x"]))

    block(0, rng.random() < 0.3, 0)
    return "\n".join(lines) + "\n"


def test_generated_anchor_documents_are_read_exactly_or_declined():
    rng = random.Random(MUTATION_SEED + 2)
    texts = [_anchor_document(rng) for _ in range(ANCHOR_DOCUMENTS)]
    answers = [(goyaml_corpus.compare(t), goyaml_corpus.compare(t, json_step=False)) for t in texts]
    assert [t for t, pair in zip(texts, answers, strict=True) if None in pair] == []
    taken = [t for t, pair in zip(texts, answers, strict=True) if pair == ("same", "same")]
    assert len(taken) > ANCHOR_DOCUMENTS // 4
    assert sum("*" in t for t in taken) > ANCHOR_DOCUMENTS // 10


def test_the_alertmanager_values_of_prometheus_decode_without_pyyaml():
    """Its only anchor and aliases (a port name) kept a first run of prometheus from being
    free of PyYAML (and of ctypes, which the PyYAML path imports to raise libyaml's limit)."""
    path = SHARED_CHARTS / "prometheus" / "charts" / "alertmanager" / "values.yaml"
    if not path.is_file():
        pytest.skip(f"{path} is absent (set HELM_CONTROLLER_SHARED_CHARTS)")
    text = path.read_text()
    assert "&containerPortName" in text and "*containerPortName" in text
    assert goyaml_corpus.compare(text) == goyaml_corpus.compare(text, json_step=False) == "same"
    script = ("import sys; from helm_core.golib import goyaml; value = goyaml.decode(open(sys.argv[1]).read()); "
              "print(sorted(m for m in ('yaml', 'ctypes') if m in sys.modules), value['containerPortName'])")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    run = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, env=env,
                         check=True)
    assert run.stdout.strip() == "[] http"


def test_tricky_documents_of_test_goyaml_agree():
    assert [t for t in TRICKY_YAML if goyaml_corpus.compare(t) is None] == []
    assert sum(goyaml_corpus.compare(t) == "same" for t in TRICKY_YAML) > len(TRICKY_YAML) // 3


def test_every_real_document_reads_as_the_pyyaml_path_reads_it():
    """Rendered documents, values and Chart.yaml files of every chart: no difference, and the
    block reader takes almost all of them (else PyYAML would be imported after all)."""
    if not SHARED_CHARTS.is_dir():
        pytest.skip(f"{SHARED_CHARTS} is absent (set HELM_CONTROLLER_SHARED_CHARTS): examples/charts only")
    texts = goyaml_corpus.real_texts()
    differ = [name for name, text in texts
              for json_step in (True, False) if goyaml_corpus.compare(text, json_step=json_step) is None]
    assert differ == []
    taken = sum(goyaml_block.decode(text) is not goyaml_block.DECLINED for _, text in texts)
    assert len(texts) > 200 and taken / len(texts) > 0.95


def test_the_example_charts_read_as_the_pyyaml_path_reads_them():
    texts = [(n, t) for n, t in goyaml_corpus.real_texts() if n.startswith(str(goyaml_corpus.EXAMPLES))]
    assert len(texts) > 10
    assert [n for n, t in texts if goyaml_corpus.compare(t) != "same"] == []


#: Pieces inserted by the mutations: indicators, quotes, tabs, anchors, tags, markers,
#: unicode and breaks, block scalar headers, escapes, typed words.
MUTATION_PIECES = [":", ": ", " :", " #", "#", "'", '"', "''", "\t", "&a ", "*a", "!", "!!str ", "- ", "-", "? ",
                   "\u00e9", "\u2028", "\x85", "\U0001F600", "\ufeff", "\r", "\x00", "\x7f", "  ", "   ", "|", "|-", ">+",
                   "|2", ">", "|+", "[", "]", "{", "}", ",", "---", "...", "\\", "\\x4", "\\u00e9", "\\n", "\\/", "%",
                   "@", "`", "\n", "\n\n", "\n  ", "\n    x", "<<: ", "~", "null", "yes", "0x1F", "1e3", ".nan",
                   "{}", "[]", "[a, b]", "['x', \"y\"]", "a: b", '\\"', "'a'", " ", "1", " " * 12]
MUTATIONS = 3000
MUTATION_SEED = 20261126


def _mutate(rng: random.Random, text: str) -> str:
    lines = text.split("\n")
    if len(lines) > 30 and rng.random() < 0.9:  # a window keeps each case small
        start = rng.randrange(len(lines))
        lines = lines[start:start + rng.randint(3, 30)]
    for _ in range(rng.choice([1, 1, 2, 3])):
        if not lines:
            lines = [""]
        i = rng.randrange(len(lines))
        op = rng.randrange(9)
        if op == 0:
            del lines[i]
        elif op == 1:
            lines.insert(i, lines[i])
        elif op == 2:
            lines[i] = " " * rng.choice([1, 2, 4]) + lines[i]
        elif op == 3:
            lines[i] = lines[i][rng.choice([1, 2]):] if lines[i].startswith(" ") else lines[i]
        elif op == 4:
            lines[i] += rng.choice(MUTATION_PIECES)
        elif op == 5:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        else:
            at = rng.randint(0, len(lines[i]))
            lines[i] = lines[i][:at] + rng.choice(MUTATION_PIECES) + lines[i][at:]
    return "\n".join(lines)


def test_mutated_real_documents_are_read_exactly_or_declined():
    """Deleted, doubled, moved, indented lines and inserted indicators: each case the block
    reader takes must read (or fail) as the PyYAML path; many must still be taken."""
    texts = [t for _, t in goyaml_corpus.real_texts()]
    rng = random.Random(MUTATION_SEED)
    taken = 0
    differ = []
    for _ in range(MUTATIONS):
        text = _mutate(rng, rng.choice(texts))
        answers = {goyaml_corpus.compare(text), goyaml_corpus.compare(text, json_step=False)}
        if None in answers:
            differ.append(text)
        taken += "same" in answers
    assert differ == []
    assert taken > MUTATIONS // 4


BLOCK_SCALARS = 2000


def _block_scalar_document(rng: random.Random) -> str:
    """A literal or folded scalar under a key, a '-', a '- key:' or a sequence at its key's
    column, with indicators (both orders), lines more or less indented, empty and space-only
    lines, comment-like lines, a row or marker after it and any ending of the text."""
    indent = rng.choice([0, 0, 2, 4])
    header = rng.choice("|>") + rng.choice(["", "", "-", "+"]) + rng.choice(["", "", "1", "2", "3"])
    if rng.random() < 0.2:
        header = header[0] + header[2:] + header[1:2]
    head, base = rng.choice([(f"{' ' * indent}k: ", indent), (f"{' ' * indent}- ", indent),
                             (f"{' ' * indent}- k: ", indent + 2), ("k:\n- ", 0)])
    lines = [head + header]
    body = base + rng.choice([1, 2, 2, 3])
    for _ in range(rng.randint(0, 7)):
        r = rng.random()
        if r < 0.5:
            lines.append(" " * (body + rng.choice([0, 0, 0, 1, 2])) + rng.choice(["x", "y z", "#c", "- a", "k: v", "  "]))
        elif r < 0.8:
            lines.append(" " * rng.randint(0, body + 3))
        else:
            lines.append(" " * rng.randint(0, body) + rng.choice(["x", "#c"]))
    if rng.random() < 0.5:
        lines.append(" " * indent + rng.choice(["k2: v", "- v", "# c", "---", "..."]))
    return "\n".join(lines) + rng.choice(["", "\n", "\n\n", "\n   ", " "])


def test_generated_block_scalars_are_read_exactly_or_declined():
    rng = random.Random(MUTATION_SEED + 1)
    answers = [goyaml_corpus.compare(_block_scalar_document(rng)) for _ in range(BLOCK_SCALARS)]
    assert None not in answers and answers.count("same") > BLOCK_SCALARS // 3


def test_a_cli_render_with_a_random_secret_does_not_import_pyyaml(tmp_path):
    """The hello example plus a Secret with a random password and values with an anchor and
    an alias: the first run (empty cache) and the second (one document new) decode every YAML
    text without PyYAML."""
    chart = tmp_path / "hello"
    subprocess.run(["cp", "-r", str(ROOT / "examples" / "charts" / "hello"), str(chart)], check=True)
    with (chart / "values.yaml").open("a") as values:
        values.write("\nportName: &portName http\nports:\n  - name: *portName\n")
    (chart / "templates" / "secret.yaml").write_text(
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: {{ .Release.Name }}-pw\n"
        "data:\n  password: {{ randAlphaNum 16 | b64enc | quote }}\n")
    script = ("import sys; from helm_core import cli; code = cli.main(['template', 'x', sys.argv[1]]); "
              "print('pyyaml' if 'yaml' in sys.modules else 'no pyyaml', file=sys.stderr); sys.exit(code)")
    env = dict(os.environ, HELM_CORE_CACHE=str(tmp_path / "cache"), PYTHONPATH=os.pathsep.join(sys.path))
    runs = [subprocess.run([sys.executable, "-c", script, str(chart)], capture_output=True, text=True, env=env,
                           check=False) for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr
    assert [r.stderr.strip().splitlines()[-1] for r in runs] == ["no pyyaml", "no pyyaml"]
    passwords = [line for r in runs for line in r.stdout.splitlines() if "password:" in line]
    assert len(passwords) == 2 and passwords[0] != passwords[1]  # the document was new: decoded again
