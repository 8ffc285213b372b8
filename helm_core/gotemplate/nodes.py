"""Parse-tree nodes of Go's text/template (Go's ``parse/node.go``).

Every node keeps its offset ``pos`` in the template text and its :class:`Tree`, and
``str(node)`` reprints the source exactly as Go's ``Node.String()`` does: execution
errors quote it (``executing "x" at <.Values.foo>``) and parser tests compare reprints.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional, Union

from helm_core.gotemplate import gofmt


@dataclass(eq=False)
class Tree:
    """One named template: its body and where it was parsed from.

    ``parse_name`` is the name of the file-level template whose text holds this tree
    (a ``define`` inside ``a.yaml`` has ``name="x"``, ``parse_name="a.yaml"``); error
    positions are counted in ``text``.
    """

    name: str
    parse_name: str
    text: str
    root: Optional["ListNode"] = None
    #: The compiled form, filled once by the compiler and shared by every set holding the tree.
    compiled: Optional[Callable[..., None]] = None

    def location(self, pos: int) -> str:
        """Go's ``ErrorContext`` location ``NAME:LINE:COL`` (COL is a 0-based byte offset)."""
        before = self.text[:pos]
        nl = before.rfind("\n")
        col = len(before[nl + 1 :].encode("utf-8")) if nl >= 0 else len(before.encode("utf-8"))
        return f"{self.parse_name}:{1 + before.count(chr(10))}:{col}"

    def __getstate__(self) -> dict[str, Any]:
        # Closures do not pickle; a loaded tree compiles again when first executed.
        return dict(self.__dict__, compiled=None)


class Node:
    """Base of all nodes (subclasses set ``tr`` and ``pos`` themselves: no super() call
    per node while parsing)."""

    __slots__ = ("pos", "tr")

    def __init__(self, tr: Tree, pos: int) -> None:
        self.tr = tr
        self.pos = pos

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {str(self)!r}>"


class ListNode(Node):
    __slots__ = ("nodes",)

    def __init__(self, tr: Tree, pos: int) -> None:
        self.tr = tr
        self.pos = pos
        self.nodes: list[Node] = []

    def __str__(self) -> str:
        return "".join(str(n) for n in self.nodes)


class TextNode(Node):
    __slots__ = ("text",)

    def __init__(self, tr: Tree, pos: int, text: str) -> None:
        self.tr = tr
        self.pos = pos
        self.text = text

    def __str__(self) -> str:
        return self.text


class CommentNode(Node):
    __slots__ = ("text",)

    def __init__(self, tr: Tree, pos: int, text: str) -> None:
        self.tr = tr
        self.pos = pos
        self.text = text

    def __str__(self) -> str:
        return "{{" + self.text + "}}"


class PipeNode(Node):
    __slots__ = ("line", "is_assign", "decl", "cmds")

    def __init__(self, tr: Tree, pos: int, line: int) -> None:
        self.tr = tr
        self.pos = pos
        self.line = line
        self.is_assign = False
        self.decl: list[VariableNode] = []
        self.cmds: list[CommandNode] = []

    def __str__(self) -> str:
        s = ""
        if self.decl:
            s = ", ".join(str(v) for v in self.decl) + (" = " if self.is_assign else " := ")
        return s + " | ".join(str(c) for c in self.cmds)


class ActionNode(Node):
    __slots__ = ("line", "pipe")

    def __init__(self, tr: Tree, pos: int, line: int, pipe: PipeNode) -> None:
        self.tr = tr
        self.pos = pos
        self.line = line
        self.pipe = pipe

    def __str__(self) -> str:
        return "{{" + str(self.pipe) + "}}"


class CommandNode(Node):
    __slots__ = ("args",)

    def __init__(self, tr: Tree, pos: int) -> None:
        self.tr = tr
        self.pos = pos
        self.args: list[Node] = []

    def __str__(self) -> str:
        return " ".join(f"({a})" if isinstance(a, PipeNode) else str(a) for a in self.args)


class IdentifierNode(Node):
    __slots__ = ("ident",)

    def __init__(self, tr: Tree, pos: int, ident: str) -> None:
        self.tr = tr
        self.pos = pos
        self.ident = ident

    def __str__(self) -> str:
        return self.ident


class VariableNode(Node):
    """``$x`` or ``$x.a.b``: ``ident[0]`` is the variable, the rest are fields."""

    __slots__ = ("ident",)

    def __init__(self, tr: Tree, pos: int, ident: str) -> None:
        self.tr = tr
        self.pos = pos
        self.ident = ident.split(".")

    def __str__(self) -> str:
        return ".".join(self.ident)


class DotNode(Node):
    __slots__ = ()

    def __str__(self) -> str:
        return "."


class NilNode(Node):
    __slots__ = ()

    def __str__(self) -> str:
        return "nil"


class FieldNode(Node):
    __slots__ = ("ident",)

    def __init__(self, tr: Tree, pos: int, ident: str) -> None:
        self.tr = tr
        self.pos = pos
        self.ident = ident[1:].split(".")

    def __str__(self) -> str:
        return "".join("." + i for i in self.ident)


class ChainNode(Node):
    """A term followed by fields: ``(index .a 0).b``."""

    __slots__ = ("node", "fields")

    def __init__(self, tr: Tree, pos: int, node: Node, fields: list[str]) -> None:
        self.tr = tr
        self.pos = pos
        self.node = node
        #: Field names without their dots.
        self.fields = fields

    def __str__(self) -> str:
        head = f"({self.node})" if isinstance(self.node, PipeNode) else str(self.node)
        return head + "".join("." + f for f in self.fields)


class BoolNode(Node):
    __slots__ = ("true",)

    def __init__(self, tr: Tree, pos: int, true: bool) -> None:
        self.tr = tr
        self.pos = pos
        self.true = true

    def __str__(self) -> str:
        return "true" if self.true else "false"


class NumberNode(Node):
    """A numeric constant; the ``is_*`` flags say which Go types can hold it exactly."""

    __slots__ = ("is_int", "is_uint", "is_float", "is_complex", "int64", "uint64", "float64", "complex128", "text")

    def __init__(self, tr: Tree, pos: int, text: str) -> None:
        self.tr = tr
        self.pos = pos
        self.text = text
        self.is_int = self.is_uint = self.is_float = self.is_complex = False
        self.int64 = 0
        self.uint64 = 0
        self.float64 = 0.0
        self.complex128 = 0j

    def __str__(self) -> str:
        return self.text


class StringNode(Node):
    __slots__ = ("quoted", "text")

    def __init__(self, tr: Tree, pos: int, quoted: str, text: str) -> None:
        self.tr = tr
        self.pos = pos
        self.quoted = quoted
        self.text = text

    def __str__(self) -> str:
        return self.quoted


class EndNode(Node):
    __slots__ = ()

    def __str__(self) -> str:
        return "{{end}}"


class ElseNode(Node):
    __slots__ = ("line",)

    def __init__(self, tr: Tree, pos: int, line: int) -> None:
        self.tr = tr
        self.pos = pos
        self.line = line

    def __str__(self) -> str:
        return "{{else}}"


class BranchNode(Node):
    """Shared shape of if, range and with."""

    __slots__ = ("line", "pipe", "list", "else_list")
    keyword = ""

    def __init__(
        self, tr: Tree, pos: int, line: int, pipe: PipeNode, lst: ListNode, else_list: Optional[ListNode]
    ) -> None:
        self.tr = tr
        self.pos = pos
        self.line = line
        self.pipe = pipe
        self.list = lst
        self.else_list = else_list

    def __str__(self) -> str:
        s = "{{" + self.keyword + " " + str(self.pipe) + "}}" + str(self.list)
        if self.else_list is not None:
            s += "{{else}}" + str(self.else_list)
        return s + "{{end}}"


class IfNode(BranchNode):
    __slots__ = ()
    keyword = "if"


class RangeNode(BranchNode):
    __slots__ = ()
    keyword = "range"


class WithNode(BranchNode):
    __slots__ = ()
    keyword = "with"


class BreakNode(Node):
    __slots__ = ("line",)

    def __init__(self, tr: Tree, pos: int, line: int) -> None:
        self.tr = tr
        self.pos = pos
        self.line = line

    def __str__(self) -> str:
        return "{{break}}"


class ContinueNode(Node):
    __slots__ = ("line",)

    def __init__(self, tr: Tree, pos: int, line: int) -> None:
        self.tr = tr
        self.pos = pos
        self.line = line

    def __str__(self) -> str:
        return "{{continue}}"


class TemplateNode(Node):
    """``{{template "name" pipeline}}`` (also what a ``block`` leaves in place)."""

    __slots__ = ("line", "name", "pipe")

    def __init__(self, tr: Tree, pos: int, line: int, name: str, pipe: Optional[PipeNode]) -> None:
        self.tr = tr
        self.pos = pos
        self.line = line
        self.name = name
        self.pipe = pipe

    def __str__(self) -> str:
        if self.pipe is None:
            return "{{template " + gofmt.quote(self.name) + "}}"
        return "{{template " + gofmt.quote(self.name) + " " + str(self.pipe) + "}}"


Operand = Union[
    FieldNode, ChainNode, IdentifierNode, VariableNode, DotNode, NilNode, BoolNode, NumberNode, StringNode, PipeNode
]


def is_empty_tree(n: Optional[Node]) -> bool:
    """Go's ``IsEmptyTree``: only whitespace text and comments (a define that adds nothing)."""
    if n is None or isinstance(n, CommentNode):
        return True
    if isinstance(n, ListNode):
        return all(is_empty_tree(x) for x in n.nodes)
    if isinstance(n, TextNode):
        return n.text.strip(" \t\n\r\v\f\x85\xa0") == ""
    return False

