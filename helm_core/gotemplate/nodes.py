"""Parse-tree nodes of Go's text/template (Go's ``parse/node.go``).

Every node keeps its offset ``pos`` in the template text and its :class:`Tree`, and
``str(node)`` reprints the source exactly as Go's ``Node.String()`` does: execution
errors quote it (``executing "x" at <.Values.foo>``) and parser tests compare reprints.
"""
from __future__ import annotations

import copyreg
import threading
from collections.abc import Callable

from helm_core.gotemplate import gofmt
from helm_core.support import pickling
from helm_core.support.records import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Optional, TypeAlias, Union


@record(eq=False)
class Tree:
    """One named template: its body and where it was parsed from.

    ``parse_name`` is the name of the file-level template whose text holds this tree
    (a ``define`` inside ``a.yaml`` has ``name="x"``, ``parse_name="a.yaml"``); error
    positions are counted in ``text``.
    """

    name: str
    parse_name: str
    text: str
    root: Optional[ListNode] = None
    #: The compiled form, filled once by the compiler and shared by every set holding the tree.
    compiled: Optional[Callable[..., None]] = None
    #: Whether ``compiled`` was compiled again to Python code (:mod:`codegen`), or tried.
    generated: bool = False
    #: For a tree loaded from the disk memo: parses its file's text again (the trees of the
    #: file by name, parsed once), for the bodies the memo did not store (:data:`NOT_STORED`).
    reparse: Optional[Callable[[], dict[str, Tree]]] = None

    def location(self, pos: int) -> str:
        """Go's ``ErrorContext`` location ``NAME:LINE:COL`` (COL is a 0-based byte offset)."""
        before = self.text[:pos]
        nl = before.rfind("\n")
        col = len(before[nl + 1 :].encode("utf-8")) if nl >= 0 else len(before.encode("utf-8"))
        return f"{self.parse_name}:{1 + before.count(chr(10))}:{col}"

    def __getstate__(self) -> dict[str, Any]:
        # Closures do not pickle; a loaded tree compiles again when first executed.
        return dict(self.__dict__, compiled=None, generated=False, reparse=None)


class Node:
    """Base of all nodes (subclasses set ``tr`` and ``pos`` themselves: no super() call
    per node while parsing). Each class pickles its own fields (``__reduce_ex__``)."""

    __slots__ = ("pos", "tr")

    def __init__(self, tr: Tree, pos: int) -> None:
        self.tr = tr
        self.pos = pos

    # Pickled as a call (the class or a restore function, and the fields): against the default
    # (a dict of slots set one by one) a third of the time to pickle and half to unpickle.
    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return type(self), (self.tr, self.pos)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {str(self)!r}>"


class ListNode(Node):
    __slots__ = ("nodes",)

    def __init__(self, tr: Tree, pos: int) -> None:
        self.tr = tr
        self.pos = pos
        self.nodes: list[Node] = []

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return _restore_list, (self.tr, self.pos, self.nodes)

    def __str__(self) -> str:
        return "".join(str(n) for n in self.nodes)


class TextNode(Node):
    __slots__ = ("text",)

    def __init__(self, tr: Tree, pos: int, text: str) -> None:
        self.tr = tr
        self.pos = pos
        self.text = text

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return TextNode, (self.tr, self.pos, self.text)

    def __str__(self) -> str:
        return self.text


class CommentNode(Node):
    __slots__ = ("text",)

    def __init__(self, tr: Tree, pos: int, text: str) -> None:
        self.tr = tr
        self.pos = pos
        self.text = text

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return CommentNode, (self.tr, self.pos, self.text)

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

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return _restore_pipe, (self.tr, self.pos, self.line, self.is_assign, self.decl, self.cmds)

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

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return ActionNode, (self.tr, self.pos, self.line, self.pipe)

    def __str__(self) -> str:
        return "{{" + str(self.pipe) + "}}"


class CommandNode(Node):
    __slots__ = ("args",)

    def __init__(self, tr: Tree, pos: int) -> None:
        self.tr = tr
        self.pos = pos
        self.args: list[Node] = []

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return _restore_command, (self.tr, self.pos, self.args)

    def __str__(self) -> str:
        return " ".join(f"({a})" if isinstance(a, PipeNode) else str(a) for a in self.args)


class IdentifierNode(Node):
    __slots__ = ("ident",)

    def __init__(self, tr: Tree, pos: int, ident: str) -> None:
        self.tr = tr
        self.pos = pos
        self.ident = ident

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return IdentifierNode, (self.tr, self.pos, self.ident)

    def __str__(self) -> str:
        return self.ident


class VariableNode(Node):
    """``$x`` or ``$x.a.b``: ``ident[0]`` is the variable, the rest are fields."""

    __slots__ = ("ident",)

    def __init__(self, tr: Tree, pos: int, ident: str) -> None:
        self.tr = tr
        self.pos = pos
        self.ident = ident.split(".")

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return _restore_ident, (VariableNode, self.tr, self.pos, self.ident)

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

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return _restore_ident, (FieldNode, self.tr, self.pos, self.ident)

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

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return ChainNode, (self.tr, self.pos, self.node, self.fields)

    def __str__(self) -> str:
        head = f"({self.node})" if isinstance(self.node, PipeNode) else str(self.node)
        return head + "".join("." + f for f in self.fields)


class BoolNode(Node):
    __slots__ = ("true",)

    def __init__(self, tr: Tree, pos: int, true: bool) -> None:
        self.tr = tr
        self.pos = pos
        self.true = true

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return BoolNode, (self.tr, self.pos, self.true)

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

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return _restore_number, (self.tr, self.pos, self.text, self.is_int, self.is_uint, self.is_float,
                                 self.is_complex, self.int64, self.uint64, self.float64, self.complex128)

    def __str__(self) -> str:
        return self.text


class StringNode(Node):
    __slots__ = ("quoted", "text")

    def __init__(self, tr: Tree, pos: int, quoted: str, text: str) -> None:
        self.tr = tr
        self.pos = pos
        self.quoted = quoted
        self.text = text

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return StringNode, (self.tr, self.pos, self.quoted, self.text)

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

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return type(self), (self.tr, self.pos, self.line)

    def __str__(self) -> str:
        return "{{else}}"


class BranchNode(Node):
    """Shared shape of if, range and with.

    Pickled (the disk memo of parse trees), each body is a pickle of its own, unpickled
    the first time ``list`` or ``else_list`` is read: charts keep whole features behind
    values that are off by default, and most of a chart's nodes sit in branches that never
    run, so a render that does not enter a branch does not pay for loading it. A body that
    was never read (``entered``) when the tree is pickled is not stored at all: pickling it
    cost a first run more than parsing it, and a later run that enters it parses the
    file's text again (which parsed without error: the memo's key is that text).
    """

    __slots__ = ("line", "pipe", "_list", "_else_list", "has_else", "_list_blob", "_else_blob", "entered")
    keyword = ""

    def __init__(
        self, tr: Tree, pos: int, line: int, pipe: PipeNode, lst: ListNode, else_list: Optional[ListNode]
    ) -> None:
        self.tr = tr
        self.pos = pos
        self.line = line
        self.pipe = pipe
        self._list = lst
        self._else_list = else_list
        self.has_else = else_list is not None
        self._list_blob: Optional[bytes] = None
        self._else_blob: Optional[bytes] = None
        #: Which bodies were read (1: ``list``, 2: ``else_list``): the compiler reads a body
        #: when it first runs it.
        self.entered = 0

    @property
    def list(self) -> ListNode:
        self.entered |= 1
        blob = self._list_blob
        if blob is not None:  # two threads may both load: either result is the same tree
            body = _load_body(self, blob, else_part=False)
            assert body is not None  # an if, range or with always has this body
            self._list = body
            self._list_blob = None
        return self._list

    @property
    def else_list(self) -> Optional[ListNode]:
        self.entered |= 2
        blob = self._else_blob
        if blob is not None:
            self._else_list = _load_body(self, blob, else_part=True)
            self._else_blob = None
        return self._else_list

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        bodies = (self._stored_body(self._list, self._list_blob, self.entered & 1),
                  self._stored_body(self._else_list, self._else_blob, self.entered & 2)
                  if self.has_else else None)
        return (_stored_branch, (type(self), self.tr, self.pos, self.line, self.pipe, bodies))

    def _stored_body(self, body: Optional[ListNode], blob: Optional[bytes], entered: int) -> bytes:
        if blob is not None:  # loaded from the memo and still unread: stored as it was
            return blob
        return _dump_body(self.tr, body) if entered else NOT_STORED

    def __str__(self) -> str:
        s = "{{" + self.keyword + " " + str(self.pipe) + "}}" + str(self.list)
        if self.has_else:
            s += "{{else}}" + str(self.else_list)
        return s + "{{end}}"


def _stored_branch(cls: type[BranchNode], tr: Tree, pos: int, line: int, pipe: PipeNode,
                   bodies: tuple[bytes, Optional[bytes]]) -> BranchNode:
    node = cls.__new__(cls)
    node.tr, node.pos, node.line, node.pipe = tr, pos, line, pipe
    node._list = node._else_list = None  # type: ignore[assignment]
    node._list_blob, node._else_blob = bodies
    node.has_else = bodies[1] is not None
    node.entered = 0
    return node


#: What the memo holds for a body (or a whole tree) that was not stored: parse the text again.
#: (No pickle is empty.)
NOT_STORED = b""


# Restore functions of the pickled nodes whose constructor does not take every field. Each sets
# the fields of a bare node (``__new__``): calling the constructor too would run a second Python
# frame per node and fill fields to be replaced (a memo run of redis restores ~2,400 of these).

_new = object.__new__


def _restore_list(tr: Tree, pos: int, items: list[Node]) -> ListNode:
    node = _new(ListNode)
    node.tr, node.pos, node.nodes = tr, pos, items
    return node


def _restore_pipe(tr: Tree, pos: int, line: int, is_assign: bool, decl: list[VariableNode],
                  cmds: list[CommandNode]) -> PipeNode:
    node = _new(PipeNode)
    node.tr, node.pos, node.line, node.is_assign, node.decl, node.cmds = tr, pos, line, is_assign, decl, cmds
    return node


def _restore_command(tr: Tree, pos: int, args: list[Node]) -> CommandNode:
    node = _new(CommandNode)
    node.tr, node.pos, node.args = tr, pos, args
    return node


def _restore_ident(cls: type[VariableNode] | type[FieldNode], tr: Tree, pos: int,
                   ident: list[str]) -> VariableNode | FieldNode:
    node = _new(cls)
    node.tr, node.pos, node.ident = tr, pos, ident
    return node


def _restore_number(tr: Tree, pos: int, text: str, is_int: bool, is_uint: bool, is_float: bool,
                    is_complex: bool, int64: int, uint64: int, float64: float, complex128: complex) -> NumberNode:
    node = _new(NumberNode)
    node.tr, node.pos, node.text = tr, pos, text
    node.is_int, node.is_uint, node.is_float, node.is_complex = is_int, is_uint, is_float, is_complex
    node.int64, node.uint64, node.float64, node.complex128 = int64, uint64, float64, complex128
    return node


# Pickled forms. The C pickler calls a Python hook only for types in its dispatch_table:
# a tree met inside its own pickle is written once (the pickle memoizes it) as "the tree
# being loaded", with no per-object callback on either side.

_loading = threading.local()


def _tree_being_loaded() -> Tree:
    tree: Tree = _loading.tree
    return tree


def _pickle(obj: Any, reduce_tree: Callable[[Tree], Any]) -> bytes:
    return pickling.dumps_reducing(obj, {Tree: reduce_tree})


def _dump_body(tree: Tree, body: Optional[ListNode]) -> bytes:
    def reduce_tree(t: Tree) -> Any:
        # A body parsed again (_reparsed_body) points at its own parse of the same template.
        if t is not tree and (t.name, t.parse_name, t.text) != (tree.name, tree.parse_name, tree.text):
            raise pickling.PicklingError(f"a node of {tree.name!r} points at another tree ({t.name!r})")
        return _tree_being_loaded, ()

    return _pickle(body, reduce_tree)


def _load_body(node: BranchNode, blob: bytes, *, else_part: bool) -> Optional[ListNode]:
    tree = node.tr
    if blob == NOT_STORED:
        return _reparsed_body(node, else_part=else_part)
    previous = getattr(_loading, "tree", None)
    _loading.tree = tree
    try:
        body: ListNode = pickling.loads_naming_known(blob)
        return body
    finally:
        _loading.tree = previous


def _reparsed_body(node: BranchNode, *, else_part: bool) -> Optional[ListNode]:
    """The body the memo did not store, from a new parse of the tree's text: the branch of
    the same kind at the same offset (its nodes belong to the new tree, which has the same
    name, file and text: all that errors quote)."""
    tree = node.tr
    if tree.reparse is None:
        raise RuntimeError(f"a body of {tree.name!r} was not stored and its text is not at hand")
    fresh = tree.reparse()[tree.name]
    pending: list[Optional[Node]] = [fresh.root]
    while pending:
        item = pending.pop()
        if isinstance(item, ListNode):
            pending.extend(item.nodes)
        elif isinstance(item, BranchNode):
            if item.pos == node.pos and type(item) is type(node):
                return item._else_list if else_part else item._list
            pending.append(item._list)
            pending.append(item._else_list)
    raise RuntimeError(f"no {type(node).__name__} at offset {node.pos} in a new parse of {tree.name!r}")


def dump_tree(tree: Tree) -> bytes:
    """``tree`` pickled without where it was parsed from: the file's name and text (shared by
    the file's trees, and the same text may be parsed under another name)."""
    def reduce_tree(t: Tree) -> Any:
        state = dict(t.__getstate__(), text="", parse_name="")
        if t.name == t.parse_name:
            state["name"] = None  # the file's own tree is named after the file
        return copyreg.__newobj__, (Tree,), state  # type: ignore[attr-defined]  # not in typeshed

    return _pickle(tree, reduce_tree)


def load_tree(blob: bytes, parse_name: str, text: str, reparse: Callable[[], dict[str, Tree]]) -> Tree:
    """A tree from :func:`dump_tree`, parsed from ``text`` as file ``parse_name``; ``reparse``
    parses that text again, for the bodies that were not stored."""
    tree: Tree = pickling.loads_naming_known(blob)
    tree.text = text
    tree.parse_name = parse_name
    if tree.name is None:
        tree.name = parse_name
    tree.reparse = reparse
    return tree


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

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return type(self), (self.tr, self.pos, self.line)

    def __str__(self) -> str:
        return "{{break}}"


class ContinueNode(Node):
    __slots__ = ("line",)

    def __init__(self, tr: Tree, pos: int, line: int) -> None:
        self.tr = tr
        self.pos = pos
        self.line = line

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return type(self), (self.tr, self.pos, self.line)

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

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return TemplateNode, (self.tr, self.pos, self.line, self.name, self.pipe)

    def __str__(self) -> str:
        if self.pipe is None:
            return "{{template " + gofmt.quote(self.name) + "}}"
        return "{{template " + gofmt.quote(self.name) + " " + str(self.pipe) + "}}"


Operand: TypeAlias = (
    "Union[FieldNode, ChainNode, IdentifierNode, VariableNode, DotNode, NilNode, BoolNode, NumberNode, StringNode,"
    " PipeNode]")


def is_empty_tree(n: Optional[Node]) -> bool:
    """Go's ``IsEmptyTree``: only whitespace text and comments (a define that adds nothing)."""
    if n is None or isinstance(n, CommentNode):
        return True
    if isinstance(n, ListNode):
        return all(is_empty_tree(x) for x in n.nodes)
    if isinstance(n, TextNode):
        return n.text.strip(" \t\n\r\v\f\x85\xa0") == ""
    return False



def text_trees(name: str, text: str) -> dict[str, Tree]:
    """What the parser makes of a ``text`` without ``{{`` (no action, so no error): one tree whose
    list holds the text as one node (none for empty text). ``tpl`` of a plain value is the
    common case, and a run answering it this way need not import the parser and lexer."""
    tree = Tree(name, name, text)
    tree.root = ListNode(tree, 0)
    if text:
        tree.root.nodes.append(TextNode(tree, 0, text))
    return {name: tree}
