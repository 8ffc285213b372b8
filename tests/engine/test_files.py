"""engine.files: Helm's .Files methods and gobwas/glob matching."""
from __future__ import annotations

import pytest

from helm_core.chart import model
from helm_core.engine import files

FILES = files.Files.from_chart_files([
    model.File("config/a.yaml", b"a: 1\n"),
    model.File("config/sub/b.yaml", b"b: 2\n"),
    model.File("config/c.txt", b"line1\nline2\n"),
    model.File("README.md", b"# readme"),
    model.File("bin/blob", b"\xff\x00\x01"),
])


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("config/*", ["config/a.yaml", "config/c.txt"]),
        ("config/**", ["config/a.yaml", "config/c.txt", "config/sub/b.yaml"]),
        ("**.yaml", ["config/a.yaml", "config/sub/b.yaml"]),
        ("*.yaml", []),
        ("config/?.txt", ["config/c.txt"]),
        ("config/[ab].yaml", ["config/a.yaml"]),
        ("config/[!a].*", ["config/c.txt"]),
        ("{README.md,bin/*}", ["README.md", "bin/blob"]),
        ("config/\\*", []),
        ("config/[", ["README.md", "bin/blob", "config/a.yaml", "config/c.txt", "config/sub/b.yaml"]),
    ],
    ids=["star", "super-star", "super-suffix", "star-no-slash", "question", "class", "negated-class",
         "alternatives", "escape", "bad-pattern-matches-all"],
)
def test_glob_follows_gobwas_with_slash_separator(pattern, expected):
    assert sorted(FILES.Glob(pattern)) == sorted(expected)


def test_get_returns_text_and_empty_for_missing():
    assert FILES.Get("README.md") == "# readme"
    assert FILES.Get("nope") == ""
    assert FILES.GetBytes("nope") == b""


def test_get_keeps_invalid_utf8_bytes_recoverable():
    assert FILES.Get("bin/blob").encode("utf-8", "surrogateescape") == b"\xff\x00\x01"


@pytest.mark.parametrize(
    ("path", "expected"),
    [("config/c.txt", ["line1", "line2"]), ("README.md", ["# readme"]), ("nope", [])],
    ids=["trailing-newline-dropped", "no-newline", "missing"],
)
def test_lines_splits_on_newline(path, expected):
    assert FILES.Lines(path) == expected


def test_as_config_keys_by_base_name_in_toyaml_form():
    assert FILES.Glob("config/**.yaml").AsConfig() == "a.yaml: |\n  a: 1\nb.yaml: |\n  b: 2"


def test_as_secrets_base64_encodes():
    assert FILES.Glob("config/c.txt").AsSecrets() == "c.txt: bGluZTEKbGluZTIK"


def test_empty_glob_as_config_is_empty_map():
    assert FILES.Glob("nothing/*").AsConfig() == "{}"


def test_files_is_a_map_for_range_and_index():
    assert FILES["README.md"] == b"# readme"
    assert FILES.go_field("Get") == FILES.Get
    assert FILES.go_field("README.md") == b"# readme"
