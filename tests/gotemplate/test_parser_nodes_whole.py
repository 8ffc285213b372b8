"""The parser makes its commonest nodes without calling their classes (``parser._new``: a class
call with a Python ``__init__`` costs ~1.5x as much). Each node it makes that way must still hold
every field its class declares, as a node its constructor makes does: a field added to a node
class and not to the parser's in-place construction fails here, not in a render."""
from __future__ import annotations

from collections.abc import Iterator

from helm_core.gotemplate import nodes as n
from helm_core.gotemplate import parser

TEMPLATE = """text {{ .a.b }} {{ .c | quote }} {{ $x := .d }}{{ $x }}
{{- if .e }}{{ "s" }}{{ else }}{{ . }}{{ end }}
{{ range $i, $v := .f }}{{ include "t" $v | indent 2 }}{{ end }}
{{ with .g }}{{ printf "%s-%d" "a" 1 | trunc 3 }}{{ end }}
{{ define "t" }}{{ .h }}{{ (.i).j }}{{ `raw` }}{{ nil }}{{ true }}{{ end }}
"""


def _slots(cls: type) -> Iterator[str]:
    for klass in cls.__mro__:
        yield from getattr(klass, "__slots__", ())


def _walk(value: object, seen: set[int]) -> Iterator[n.Node]:
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, n.Node):
        yield value
        for slot in _slots(type(value)):
            yield from _walk(getattr(value, slot, None), seen)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _walk(item, seen)


def test_every_node_the_parser_makes_holds_every_field_of_its_class() -> None:
    trees = parser.parse("t.yaml", TEMPLATE, lambda name: name in {"quote", "include", "indent", "printf", "trunc"})
    seen: set[int] = set()
    found = [node for tree in trees.values() for node in _walk(tree.root, seen)]
    kinds = {type(node).__name__ for node in found}
    # the kinds made in place are all here
    assert {"ListNode", "TextNode", "ActionNode", "PipeNode", "CommandNode", "FieldNode", "IdentifierNode",
            "StringNode", "DotNode"} <= kinds  # (an end ends a list: not kept in the tree)
    for node in found:
        missing = [slot for slot in _slots(type(node)) if not hasattr(node, slot)]
        assert not missing, f"{type(node).__name__} made without {missing}"
