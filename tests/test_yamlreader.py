"""k8s's YAMLReader (helm_core.golib.yamlreader): documents cut at ``---`` lines, lazily."""
from __future__ import annotations

import pytest

from helm_core.golib import yamlreader


@pytest.mark.parametrize(("text", "expected"), [
    ("a: 1\n---\nb: 2\n", ["a: 1\n", "b: 2\n"]),
    ("---\n---  # c\na: 1\n--- #x\n", ["a: 1\n"]),             # leading and trailing separators: no empty documents
    ("a: 1", ["a: 1\n"]),                                       # the last line, unterminated, still ends in \n
    ("a: 1\r\nb: 2\r\n---\r\nc: 3", ["a: 1\nb: 2\n", "c: 3\n"]),  # \r\n read as \n
    ("\n---\n  \n", ["\n", "  \n"]),                            # blank documents are documents (they decode to null)
    ("a: |\n  x\n---\n", ["a: |\n  x\n"]),
    ("a: 1\n ---\n", ["a: 1\n ---\n"]),                         # indented dashes do not separate
    ("", []),
])
def test_documents(text, expected):
    assert list(yamlreader.documents(text)) == expected


def test_a_separator_with_text_fails_when_reached():
    documents = yamlreader.documents("a: 1\n---\nb: 2\n--- x\nc: 3\n")
    assert next(documents) == "a: 1\n"
    # Go fails at the line itself: the document it would have ended is not returned.
    with pytest.raises(ValueError, match="^invalid Yaml document separator: x$"):
        next(documents)
    with pytest.raises(ValueError, match="separator: -$"):
        list(yamlreader.documents("----\n"))
