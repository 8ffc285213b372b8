"""Splitting rendered files into documents, hooks, and Helm's kind order."""
from __future__ import annotations

import itertools
import re

import pytest

from helm_core.chart import gostruct
from helm_core.engine import manifests as mf
from helm_core.errors import ManifestError
from helm_core.golib import goyaml
from tests import goyaml_corpus


@pytest.mark.parametrize(
    ("text", "docs"),
    [
        ("a: 1\n---\nb: 2\n", ["a: 1", "b: 2"]),
        ("---\na: 1\n", ["a: 1"]),
        # Go's regexp consumes the blank line after the first separator, so the second
        # '---' is not at a line start any more and stays in the document (as in Helm).
        ("a: 1\n---   \n\n---\nb: 2", ["a: 1", "---\nb: 2"]),
        ("a: 1\n--- # comment\nb: 2\n", ["a: 1", "# comment\nb: 2"]),
        ("a: |\n  x---y\nb: 2\n", ["a: |\n  x---y\nb: 2"]),
        ("\n\n  \n", []),
        ("a: 1\n  ---\nb: 2", ["a: 1\n  ---\nb: 2"]),
        # Go's \s and strings.TrimSpace are not Python's: \x1c-\x1f are spaces to Python only,
        # \v and U+00A0 to TrimSpace but not to the separator's \s.
        ("\x1ca: 1\n---\x1f\nb: 2\x1e", ["\x1ca: 1", "\x1f\nb: 2\x1e"]),
        ("a: 1\n---\v\u00a0\nb: 2\n\u00a0", ["a: 1", "b: 2"]),
        ("a: 1\n---\x1c", ["a: 1", "\x1c"]),
    ],
    ids=["two", "leading-separator", "empty-docs", "comment-after-separator", "dashes-inside", "blank", "indented-separator",
         "file-separators-not-go-spaces", "vertical-tab-and-nbsp-trimmed", "file-separator-after-dashes"],
)
def test_split_documents_like_helm(text, docs):
    assert mf.split_documents(text) == docs


#: releaseutil's separator as a pattern (Go's \s is ASCII): what split_documents' string methods
#: stand in for.
SEPARATOR = re.compile(r"(?:^|[\t\n\f\r ]*\n)---[\t\n\f\r ]*")


def test_documents_are_separated_where_helms_pattern_separates_them():
    """Every text of up to six characters of separators, spaces Go's \\s has and has not, and
    text; then longer generated ones."""
    import random

    alphabet = "-\n \ta\v\r"
    for size in range(7):
        for chars in itertools.product(alphabet, repeat=size):
            text = "".join(chars)
            assert mf._separated(text) == SEPARATOR.split(text), repr(text)
    rng = random.Random(5)
    pieces = ["---", "\n---", "\n", "  ", "a: 1", "\t", "\r\n", "-", "\f", "x---y", "\u00a0", "\x1c"]
    for _ in range(20000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        assert mf._separated(text) == SEPARATOR.split(text), repr(text)


def _doc(kind: str, name: str, annotations: str = "") -> str:
    ann = f"\n  annotations:\n{annotations}" if annotations else ""
    return f"apiVersion: v1\nkind: {kind}\nmetadata:\n  name: {name}{ann}\n"


def test_parse_documents_sorts_files_and_skips_partials_and_blanks():
    files = {
        "c/templates/b.yaml": _doc("Service", "s1") + "---\n" + _doc("ConfigMap", "c1"),
        "c/templates/a.yaml": _doc("Deployment", "d1"),
        "c/templates/_helpers.tpl": "not: yaml: at: all",
        "c/templates/empty.yaml": "\n  \n",
    }
    docs = mf.parse_documents(files)
    assert [(d.source, d.kind, d.name) for d in docs] == [
        ("c/templates/a.yaml", "Deployment", "d1"),
        ("c/templates/b.yaml", "Service", "s1"),
        ("c/templates/b.yaml", "ConfigMap", "c1"),
    ]


def test_invalid_yaml_document_names_its_file():
    with pytest.raises(ManifestError, match=r"YAML parse error on c/templates/bad.yaml"):
        mf.parse_documents({"c/templates/bad.yaml": "a: [1\nb: 2\n"})


def test_scalar_document_is_refused():
    with pytest.raises(ManifestError, match=re.escape(
            "YAML parse error on c/templates/x.yaml: error unmarshaling JSON: while decoding JSON: "
            "json: cannot unmarshal string into Go value of type releaseutil.SimpleHead")):
        mf.parse_documents({"c/templates/x.yaml": "just text"})


def _typed_head(doc: str):
    """The general path: the document decoded as yaml.v2 types it, then into Helm's struct."""
    try:
        return "head", gostruct.unmarshal(goyaml.decode_uncached(doc, json_step=False), mf.SIMPLE_HEAD)
    except (gostruct.MarshalError, gostruct.UnmarshalError) as exc:
        return "error", gostruct.error_text(exc)
    except ValueError as exc:
        return "error", str(exc)


def _head_outcome(doc: str):
    try:
        obj = goyaml.load(doc)
    except ValueError:
        return None  # parse_documents' YAML error, before the head
    try:
        return "head", mf.simple_head(doc, obj)
    except ValueError as exc:
        return "error", str(exc)


#: Head pieces: names in other cases (and Unicode folds), text, numbers, booleans, nulls,
#: collections where text is expected, annotations of every kind of value.
HEAD_KEYS = ["apiVersion", "kind", "metadata", "Kind", "KIND", "APIVERSION", "apiversion", "Metadata",
             "\u212aind", "other"]
META_KEYS = ["name", "annotations", "Name", "ANNOTATIONS", "labels", "namespace"]
SCALARS = ["v1", "Service", "'5'", "5", "1.5", "1e10", "10000000000", "true", "no", "~", "''", "0x1F", "[]", "{}",
           "[a]", "{a: b}", ".nan", "2001-12-14"]


def _generated_head(rng) -> str:
    lines = []
    for key in rng.sample(HEAD_KEYS, rng.randint(0, 4)):
        key = key.encode().decode("unicode_escape")
        if "etadata" in key.lower() and rng.random() < 0.8:
            lines.append(f"{key}:")
            for meta in rng.sample(META_KEYS, rng.randint(0, 3)):
                if "nnotations" in meta.lower() and rng.random() < 0.7:
                    items = ", ".join(f"k{i}: {rng.choice(SCALARS)}" for i in range(rng.randint(0, 3)))
                    lines.append(f"  {meta}: {{{items}}}")
                else:
                    lines.append(f"  {meta}: {rng.choice(SCALARS)}")
        else:
            lines.append(f"{key}: {rng.choice(SCALARS)}")
    return "\n".join(lines) or rng.choice(["- a", "text", "~", "# only a comment"])


def test_the_head_read_from_the_decoded_document_is_helms_typed_head():
    """simple_head's shortcut (the decoded object's text fields) against the typed decode it
    stands in for, values and errors, over generated heads and every real document."""
    import random

    rng = random.Random(3)
    docs = [_generated_head(rng) for _ in range(4000)]
    docs += [text for _, text in goyaml_corpus.real_texts()]
    shortcut = 0
    for doc in docs:
        ours = _head_outcome(doc)
        if ours is None:
            continue
        shortcut += mf._plain_head(goyaml.load(doc)) is not None
        assert ours == _typed_head(doc), doc
    assert shortcut > 500  # the rest went the general way: compared with itself, but refused or sorted as helm


def test_install_order_known_kinds_then_unknown_alphabetically_stable():
    files = {"c/templates/all.yaml": "---\n".join([
        _doc("Zebra", "z"), _doc("Deployment", "d"), _doc("Apple", "a"), _doc("Namespace", "ns"),
        _doc("ConfigMap", "c2"), _doc("ConfigMap", "c1"), _doc("CustomResourceDefinition", "crd"),
    ])}
    ordered = mf.sort_manifests(mf.parse_documents(files))
    assert [(m.kind, m.name) for m in ordered.manifests] == [
        ("Namespace", "ns"), ("ConfigMap", "c2"), ("ConfigMap", "c1"), ("CustomResourceDefinition", "crd"),
        ("Deployment", "d"), ("Apple", "a"), ("Zebra", "z"),
    ]
    uninstall = [m.kind for m in mf.sort_by_kind(ordered.manifests, mf.UNINSTALL_ORDER)]
    assert uninstall[:4] == ["Deployment", "CustomResourceDefinition", "ConfigMap", "ConfigMap"]
    assert uninstall[4] == "Namespace"


def test_hooks_are_separated_with_weight_and_policies():
    hook = _doc("Job", "migrate", '    "helm.sh/hook": pre-install, Post-Upgrade\n'
                '    "helm.sh/hook-weight": "-5"\n'
                '    "helm.sh/hook-delete-policy": before-hook-creation,hook-succeeded\n')
    test = _doc("Pod", "t", '    "helm.sh/hook": test-success\n')
    unknown = _doc("Pod", "u", '    "helm.sh/hook": on-full-moon\n')
    plain = _doc("ConfigMap", "cm", '    "other": x\n')
    ordered = mf.sort_manifests(mf.parse_documents({"c/templates/h.yaml": "---\n".join([hook, test, unknown, plain])}))
    assert [(m.kind, m.name) for m in ordered.manifests] == [("ConfigMap", "cm")]
    by_name = {h.name: h for h in ordered.hooks}
    assert by_name["migrate"].events == ["pre-install", "post-upgrade"]
    assert by_name["migrate"].weight == -5
    assert by_name["migrate"].delete_policies == ["before-hook-creation", "hook-succeeded"]
    assert by_name["t"].events == ["test"] and by_name["t"].weight == 0
    assert ordered.skipped == ["c/templates/h.yaml: skipping unknown hook: 'on-full-moon'"]
    assert [h.kind for h in ordered.hooks] == ["Pod", "Job"]


def test_format_documents_is_helms_manifest_text():
    docs = mf.parse_documents({"c/templates/a.yaml": _doc("ConfigMap", "x")})
    assert mf.format_documents(docs) == (
        "---\n# Source: c/templates/a.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"
    )


@pytest.mark.parametrize(("text", "weight"), [
    ("5", 5), ("-5", -5), ("+5", 5), ("007", 7), ("9223372036854775807", 9223372036854775807),
    (" 5", 0), ("5 ", 0), ("\u0663", 0), ("1_000", 0), ("0x1", 0), ("5.0", 0), ("", 0), ("-", 0),
    ("9223372036854775808", 0), ("-9223372036854775809", 0),  # out of int64: Atoi fails, helm takes 0
])
def test_hook_weight_is_gos_atoi_or_zero(text, weight):
    """helm's calculateHookWeight: ``strconv.Atoi`` (a sign and ASCII digits, no spaces, int64),
    0 when it fails (hooks run in weight order on install, upgrade, rollback and delete)."""
    assert mf._hook_weight({mf.HOOK_WEIGHT_ANNOTATION: text}) == weight


def test_hook_weight_absent_is_zero():
    assert mf._hook_weight({}) == 0


def test_documents_parsed_before_are_taken_for_the_same_text_only(monkeypatch: pytest.MonkeyPatch) -> None:
    before = mf.Manifest(source="c/templates/a.yaml", content="kind: A", obj={"kind": "A"})
    files = {"c/templates/a.yaml": "kind: A\n---\nkind: B\n", "c/templates/b.yaml": "kind: C\n"}
    decoded: list[str] = []
    real = goyaml.load
    monkeypatch.setattr(goyaml, "load", lambda doc, source: (decoded.append(doc), real(doc, source=source))[1])
    taken = mf.parse_documents(files, known={"c/templates/a.yaml": (files["c/templates/a.yaml"], [before])})
    assert taken[0] is before and [m.kind for m in taken] == ["A", "C"]
    assert decoded == ["kind: C"]
    decoded.clear()
    again = mf.parse_documents(files, known={"c/templates/a.yaml": ("kind: A (another render)", [before])})
    assert [m.kind for m in again] == ["A", "B", "C"] and all(m is not before for m in again)
    assert decoded == ["kind: A", "kind: B", "kind: C"]
