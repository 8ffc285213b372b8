"""Parser for Go's text/template (Go's ``parse/parse.go``): items in, trees out.

:func:`parse` returns every tree a text defines: the file-level template under its own
name plus one per ``define``/``block``. Parse-time checks are Go's, with Go's messages
(``template: NAME:LINE: function "foo" not defined``): unknown functions, undefined
variables, misplaced ``break``/``continue``/``else``/``end``, unexpected tokens.
"""
from __future__ import annotations

from collections.abc import Callable

from helm_core.errors import SourcePos, TemplateError
from helm_core.gotemplate import gofmt, lexer, literals
from helm_core.gotemplate import nodes as n
from helm_core.gotemplate.lexer import LINE, POS, TYP, VAL, ItemType, RawItem, item_str

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Optional

#: Go's ``maxStackDepth``: nesting of parenthesized pipelines.
MAX_PAREN_DEPTH = 10000

#: Whether parsers take :meth:`_Parser.direct_action` for the commonest actions (False: the
#: general grammar alone, which tests and bench/parse.py compare it with).
DIRECT_ACTIONS = True
#: Whether :func:`parse` reads the lexer's compact stream first (False: every item, as the
#: lexer gives them to :func:`lexer.lex`; tests and bench/parse.py compare both).
COMPACT_ITEMS = True


class ParseError(TemplateError):
    """A template does not parse; ``str()`` is Go's ``template: NAME:LINE: MSG``.

    ``reason`` is the bare MSG (Helm re-prints it as ``parse error at (NAME:LINE): MSG``).
    """

    def __init__(self, message: str, *, template_name: str, line: int, reason: str = "") -> None:
        super().__init__(message, SourcePos(template_name, line))
        self.template_name = template_name
        self.reason = reason


class _Bail(Exception):
    """Internal: abandon parsing with a Go-formatted message."""


def parse(
    name: str, text: str, has_function: Callable[[str], bool]
) -> dict[str, n.Tree]:
    """Parse ``text`` as template ``name``; returns {template name: tree}.

    ``has_function`` says whether an identifier names a function (Go checks every
    function name at parse time). Raises :class:`ParseError`.

    The items are the lexer's compact stream (no spaces, field chains whole; see
    ``lexer.lex_raw``), which the parser reads as it reads every item: the trees are the
    same. Go words an error by the last item it read, spaces included, so a text that does
    not parse is parsed again from every item, for the error Go gives.
    """
    try:
        return _parse(name, text, has_function, compact=COMPACT_ITEMS)
    except _Bail:
        pass
    return _parse(name, text, has_function, compact=False)


def _parse(name: str, text: str, has_function: Callable[[str], bool], *, compact: bool) -> dict[str, n.Tree]:
    """:func:`parse` from the compact stream (which bails out on any error) or from every item."""
    trees: dict[str, n.Tree] = {}
    p = _Parser(name, text, has_function, trees, compact=compact)
    try:
        p.parse_top()
    except _Bail as e:
        if compact:
            raise
        raise ParseError(str(e), template_name=name, line=p.error_line, reason=p.error_reason) from None
    return trees


class _Parser:
    def __init__(self, name: str, text: str, has_function: Callable[[str], bool], trees: dict[str, n.Tree],
                 *, compact: bool = False) -> None:
        self.name = name
        self.text = text
        self.has_function = has_function
        self.trees = trees
        self.items = lexer.lex_raw(
            text, break_ok=not has_function("break"), continue_ok=not has_function("continue"), compact=compact
        )
        self.n_items = len(self.items)
        self.i = 0
        self.fetched = 0
        self.tree = n.Tree(name, name, text)
        self.vars: list[str] = ["$"]
        self.range_depth = 0
        self.paren_depth = 0
        self.action_line = 0
        self.error_line = 0
        self.error_reason = ""
        self.direct = DIRECT_ACTIONS

    # -- token stream -------------------------------------------------------
    # Errors report the line of the last item read, as Go's parser does: items up to
    # ``max(fetched, i)`` were read. The hot paths below inline these reads, and there
    # ``fetched`` is written only where reading went past ``i`` (a peek) or ``i`` goes back
    # (a backup), and an error may come before ``i`` passes the item again.
    def next(self) -> RawItem:
        i = self.i
        self.i = i + 1
        if i >= self.fetched:
            self.fetched = i + 1
        return self.items[i] if i < self.n_items else self.items[-1]

    def backup(self) -> None:
        self.i -= 1

    def peek(self) -> RawItem:
        i = self.i
        if i >= self.fetched:
            self.fetched = i + 1
        return self.items[i] if i < self.n_items else self.items[-1]

    def next_non_space(self) -> RawItem:
        items, i, n_items = self.items, self.i, self.n_items
        item = items[i] if i < n_items else items[-1]
        i += 1
        while item[TYP] is _SPACE:
            item = items[i] if i < n_items else items[-1]
            i += 1
        self.i = i
        if i > self.fetched:
            self.fetched = i
        return item

    def peek_non_space(self) -> RawItem:
        """The next non-space item, leaving ``i`` on it (the spaces before it are consumed)."""
        items, i, n_items = self.items, self.i, self.n_items
        item = items[i] if i < n_items else items[-1]
        while item[TYP] is _SPACE:
            i += 1
            item = items[i] if i < n_items else items[-1]
        self.i = i
        if i >= self.fetched:
            self.fetched = i + 1
        return item

    # -- errors -------------------------------------------------------------
    def errorf(self, msg: str) -> None:
        reached = max(self.fetched, self.i)
        last = self.items[min(reached, len(self.items)) - 1] if reached else self.items[0]
        self.error_line = last[LINE]
        self.error_reason = msg
        raise _Bail(f"template: {self.name}:{last[LINE]}: {msg}")

    def expect(self, typ: ItemType, context: str) -> RawItem:
        token = self.next_non_space()
        if token[TYP] is not typ:
            self.unexpected(token, context)
        return token

    def unexpected(self, token: RawItem, context: str) -> None:
        if token[TYP] is _ERROR:
            extra = ""
            if self.action_line and self.action_line != token[LINE]:
                extra = f" in action started at {self.name}:{self.action_line}"
                if token[VAL].endswith(" action"):
                    extra = extra[len(" in action") :]
            self.errorf(f"{item_str(token)}{extra}")
        self.errorf(f"unexpected {item_str(token)} in {context}")

    # -- grammar --------------------------------------------------------------
    def parse_top(self) -> None:
        """Template: (text | action | define)* EOF."""
        tree = self.tree
        tree.root = n.ListNode(tree, self.peek()[POS])
        while (token := self.peek())[TYP] is not _EOF:
            if token[TYP] is _LEFT_DELIM:
                mark = self.i
                self.next()
                if self.next_non_space()[TYP] is _DEFINE:
                    self.parse_definition()
                    continue
                self.i = mark + 1
                node = self.direct_action(token) if self.direct else None
                if node is None:
                    node = self.delimited_action(token)
            else:
                node = self.text_or_action()
            if isinstance(node, (n.EndNode, n.ElseNode)):
                self.errorf(f"unexpected {node}")
            tree.root.nodes.append(node)
        self.add(tree)

    def add(self, tree: n.Tree) -> None:
        old = self.trees.get(tree.name)
        if old is None or n.is_empty_tree(old.root):
            self.trees[tree.name] = tree
            return
        if not n.is_empty_tree(tree.root):
            self.errorf(f"template: multiple definition of template {gofmt.quote(tree.name)}")

    def _sub_tree(self, name: str) -> tuple[n.Tree, list[str], int]:
        saved = (self.tree, self.vars, self.range_depth)
        self.tree = n.Tree(name, self.name, self.text)
        self.vars = ["$"]
        self.range_depth = 0
        return saved

    def parse_definition(self) -> None:
        """Define: {{define "name"}} itemList {{end}}."""
        context = "define clause"
        token = self.next_non_space()
        if token[TYP] not in (_STRING, _RAW_STRING):
            self.unexpected(token, context)
        name = self.unquote(token[VAL])
        saved = self._sub_tree(name)
        self.expect(_RIGHT_DELIM, context)
        self.tree.root, end = self.item_list()
        if not isinstance(end, n.EndNode):
            self.errorf(f"unexpected {end} in {context}")
        self.add(self.tree)
        self.tree, self.vars, self.range_depth = saved

    def item_list(self) -> tuple[n.ListNode, n.Node]:
        """itemList: textOrAction* ending in {{end}} or {{else}}."""
        token = self.peek_non_space()
        lst = _new(_ListNode)  # n.ListNode(self.tree, token[POS]) (see _new)
        lst.tr = self.tree
        lst.pos = token[POS]
        nodes = lst.nodes = []
        direct = self.direct
        items, n_items = self.items, self.n_items
        while token[TYP] is not _EOF:
            if token[TYP] is _TEXT:  # text_or_action's first case, inline
                self.i += 1
                text = _new(_TextNode)  # n.TextNode(self.tree, token[POS], token[VAL]) (see _new)
                text.tr = self.tree
                text.pos = token[POS]
                text.text = token[VAL]
                nodes.append(text)
            else:
                if token[TYP] is _LEFT_DELIM:  # text_or_action's next case, inline
                    self.i += 1
                    node = self.direct_action(token) if direct else None
                    if node is None:
                        node = self.delimited_action(token)
                else:
                    node = self.text_or_action()
                if node.__class__ is n.EndNode or node.__class__ is n.ElseNode:
                    return lst, node
                nodes.append(node)
            i = self.i  # token = self.peek_non_space(), inline
            token = items[i] if i < n_items else items[-1]
            while token[TYP] is _SPACE:
                i += 1
                token = items[i] if i < n_items else items[-1]
            self.i = i
            if i >= self.fetched:
                self.fetched = i + 1
        self.errorf("unexpected EOF")
        raise AssertionError("unreachable")

    def text_or_action(self) -> n.Node:
        token = self.next_non_space()
        if token[TYP] is _TEXT:
            return n.TextNode(self.tree, token[POS], token[VAL])
        if token[TYP] is _LEFT_DELIM:
            return self.delimited_action(token)
        if token[TYP] is _COMMENT:
            return n.CommentNode(self.tree, token[POS], token[VAL])
        self.unexpected(token, "input")
        raise AssertionError("unreachable")

    def delimited_action(self, left_delim: RawItem) -> n.Node:
        """The action after ``left_delim`` (just read); errors in it name the line it starts on."""
        self.action_line = left_delim[LINE]
        try:
            return self.action()
        finally:
            self.action_line = 0

    def direct_action(self, left_delim: RawItem) -> Optional[n.Node]:
        """The commonest actions without the general grammar's calls, or None (nothing read).

        ``self.i`` is just after ``left_delim``. Taken: ``{{ end }}``, ``{{ else }}``, and a
        pipeline of one field chain (``{{ .Values.a.b }}``), alone or after ``if``/``with``
        (whose bodies the general path reads). The nodes, positions, ``i``, the items read and
        ``action_line`` come out as the general path leaves them
        (tests/gotemplate/test_parser_direct.py compares both on generated actions).
        """
        # Every scan below stops at the last item (EOF or ERROR): no bound checks needed.
        items, i = self.items, self.i
        while items[i][TYP] is _SPACE:
            i += 1
        typ = items[i][TYP]
        if typ is _END or typ is _ELSE:
            close = i + 1
            while items[close][TYP] is _SPACE:
                close += 1
            right = items[close]
            if right[TYP] is not _RIGHT_DELIM:
                return None  # {{else if ...}}, {{else with ...}}, or an error
            self.i = close + 1
            self.action_line = 0
            if typ is _END:
                end_node = _new(_EndNode)  # n.EndNode(self.tree, right[POS]) (see _new)
                end_node.tr = self.tree
                end_node.pos = right[POS]
                return end_node
            return n.ElseNode(self.tree, right[POS], right[LINE])
        if typ is _IF or typ is _WITH:
            i += 1
            while items[i][TYP] is _SPACE:
                i += 1
        head = items[i]
        if head[TYP] is not _FIELD:
            return None
        end = i + 1
        while items[end][TYP] is _FIELD and items[end][POS] == items[end - 1][POS] + len(items[end - 1][VAL]):
            end += 1
        close = end
        while items[close][TYP] is _SPACE:
            close += 1
        if items[close][TYP] is not _RIGHT_DELIM:
            return None
        tr = self.tree
        field = n.FieldNode(tr, head[POS], head[VAL])
        # A chain stands at its second field (as chain() leaves it), in the head item (the
        # compact stream's) or the next.
        second = head[VAL].find(".", 1)
        if second > 0:
            field.pos += second
        elif end > i + 1:
            field.pos = items[i + 1][POS]
        for item in items[i + 1 : end]:
            field.ident.extend(item[VAL][1:].split("."))
        cmd = n.CommandNode(tr, head[POS])
        cmd.args.append(field)
        pipe = n.PipeNode(tr, head[POS], head[LINE])
        pipe.cmds.append(cmd)
        self.i = close + 1
        if typ is _IF:
            self.action_line = left_delim[LINE]
            node: n.Node = self.branch_control(n.IfNode, "if", pipe)
        elif typ is _WITH:
            self.action_line = left_delim[LINE]
            node = self.branch_control(n.WithNode, "with", pipe)
        else:
            node = _new(_ActionNode)  # n.ActionNode(tr, head[POS], head[LINE], pipe) (see _new)
            node.tr = tr
            node.pos = head[POS]
            node.line = head[LINE]
            node.pipe = pipe
        self.action_line = 0
        return node

    def action(self) -> n.Node:
        """Action: control | command ("|" command)* ."""
        items, n_items, i = self.items, self.n_items, self.i  # token = self.next_non_space()
        token = items[i] if i < n_items else items[-1]
        while token[TYP] is _SPACE:
            i += 1
            token = items[i] if i < n_items else items[-1]
        self.i = i + 1
        typ = token[TYP]
        if typ not in _CONTROL:
            self.i = i  # back to token: the pipeline starts there (and peeks it again)
            pipe = self.pipeline("command", _RIGHT_DELIM)
            node = _new(_ActionNode)  # n.ActionNode(self.tree, token[POS], token[LINE], pipe) (see _new)
            node.tr = self.tree
            node.pos = token[POS]
            node.line = token[LINE]
            node.pipe = pipe
            return node
        if typ is _END:  # the commonest first
            return n.EndNode(self.tree, self.expect(_RIGHT_DELIM, "end")[POS])
        if typ is _IF:
            return self.branch_control(n.IfNode, "if")
        if typ is _ELSE:
            return self.else_control()
        if typ is _BLOCK:
            return self.block_control()
        if typ is _BREAK:
            return self.break_control(token, "break")
        if typ is _CONTINUE:
            return self.break_control(token, "continue")
        if typ is _RANGE:
            return self.branch_control(n.RangeNode, "range")
        if typ is _TEMPLATE:
            return self.template_control()
        return self.branch_control(n.WithNode, "with")

    def break_control(self, token: RawItem, word: str) -> n.Node:
        nxt = self.next_non_space()
        if nxt[TYP] is not _RIGHT_DELIM:
            self.unexpected(nxt, "{{" + word + "}}")
        if self.range_depth == 0:
            self.errorf("{{" + word + "}} outside {{range}}")
        cls = n.BreakNode if word == "break" else n.ContinueNode
        return cls(self.tree, token[POS], token[LINE])

    def pipeline(self, context: str, end: ItemType) -> n.PipeNode:
        """Pipeline: declarations? command ('|' command)*."""
        v = self.peek_non_space()
        pipe = _new(_PipeNode)  # n.PipeNode(self.tree, v[POS], v[LINE]) (see _new)
        pipe.tr = self.tree
        pipe.pos = v[POS]
        pipe.line = v[LINE]
        pipe.is_assign = False
        pipe.decl = []
        cmds = pipe.cmds = []
        while True:  # declarations
            if v[TYP] is not _VARIABLE:
                break
            v_index = self.i
            self.next()
            after = self.peek()
            nxt = self.peek_non_space()
            if nxt[TYP] in (_ASSIGN, _DECLARE):
                pipe.is_assign = nxt[TYP] is _ASSIGN
                self.next_non_space()
                pipe.decl.append(n.VariableNode(self.tree, v[POS], v[VAL]))
                self.vars.append(v[VAL])
            elif nxt[TYP] is _CHAR and nxt[VAL] == ",":
                self.next_non_space()
                pipe.decl.append(n.VariableNode(self.tree, v[POS], v[VAL]))
                self.vars.append(v[VAL])
                if context == "range" and len(pipe.decl) < 2:
                    v = self.peek_non_space()
                    if v[TYP] in (_VARIABLE, _RIGHT_DELIM, _RIGHT_PAREN):
                        continue
                    self.errorf("range can only initialize variables")
                self.errorf(f"too many declarations in {context}")
            else:
                self.i = v_index
                _ = after
            break
        items, n_items = self.items, self.n_items
        while True:
            i = self.i  # token = self.next_non_space(), inline
            token = items[i] if i < n_items else items[-1]
            while token[TYP] is _SPACE:
                i += 1
                token = items[i] if i < n_items else items[-1]
            # (Every case below moves ``i`` past the token before an error can come.)
            typ = token[TYP]
            if typ is end:
                self.i = i + 1
                if len(cmds) != 1:
                    self.check_pipeline(pipe, context)
                return pipe
            self.i = i
            if typ in _OPERAND_START:
                cmds.append(self.command(token))  # (command reads ``token`` again)
            else:
                self.i = i + 1
                self.unexpected(token, context)

    def check_pipeline(self, pipe: n.PipeNode, context: str) -> None:
        if not pipe.cmds:
            self.errorf(f"missing value for {context}")
        for i, c in enumerate(pipe.cmds[1:]):
            if isinstance(c.args[0], (n.BoolNode, n.DotNode, n.NilNode, n.NumberNode, n.StringNode)):
                self.errorf(f"non executable command in pipeline stage {i + 2}")

    def branch_control(self, cls: type[n.BranchNode], context: str,
                       pipe: Optional[n.PipeNode] = None) -> n.Node:
        """if/range/with: pipeline itemList ({{else}} itemList | {{else if ...}})? {{end}}.

        ``pipe``: the pipeline, when :meth:`direct_action` has read it."""
        mark = len(self.vars)
        try:
            if pipe is None:
                pipe = self.pipeline(context, _RIGHT_DELIM)
            if context == "range":
                self.range_depth += 1
            lst, nxt = self.item_list()
            if context == "range":
                self.range_depth -= 1
            else_list: Optional[n.ListNode] = None
            if isinstance(nxt, n.ElseNode):
                peek = self.peek()[TYP]
                if context == "if" and peek is _IF:
                    self.next()
                    else_list = n.ListNode(self.tree, nxt.pos)
                    else_list.nodes.append(self.branch_control(n.IfNode, "if"))
                elif context == "with" and peek is _WITH:
                    self.next()
                    else_list = n.ListNode(self.tree, nxt.pos)
                    else_list.nodes.append(self.branch_control(n.WithNode, "with"))
                else:
                    else_list, nxt = self.item_list()
                    if not isinstance(nxt, n.EndNode):
                        self.errorf(f"expected end; found {nxt}")
        finally:
            del self.vars[mark:]
        return cls(self.tree, pipe.pos, pipe.line, pipe, lst, else_list)

    def else_control(self) -> n.Node:
        peek = self.peek_non_space()
        if peek[TYP] in (_IF, _WITH):
            return n.ElseNode(self.tree, peek[POS], peek[LINE])
        token = self.expect(_RIGHT_DELIM, "else")
        return n.ElseNode(self.tree, token[POS], token[LINE])

    def block_control(self) -> n.Node:
        """Block: {{block "name" pipeline}} itemList {{end}} = define + template."""
        context = "block clause"
        token = self.next_non_space()
        name = self.template_name(token, context)
        pipe = self.pipeline(context, _RIGHT_DELIM)
        saved = self._sub_tree(name)
        self.tree.root, end = self.item_list()
        if not isinstance(end, n.EndNode):
            self.errorf(f"unexpected {end} in {context}")
        self.add(self.tree)
        self.tree, self.vars, self.range_depth = saved
        return n.TemplateNode(self.tree, token[POS], token[LINE], name, pipe)

    def template_control(self) -> n.Node:
        """Template: {{template "name" pipeline?}}."""
        context = "template clause"
        token = self.next_non_space()
        name = self.template_name(token, context)
        pipe = None
        if self.next_non_space()[TYP] is not _RIGHT_DELIM:
            self.backup()
            pipe = self.pipeline(context, _RIGHT_DELIM)
        return n.TemplateNode(self.tree, token[POS], token[LINE], name, pipe)

    def template_name(self, token: RawItem, context: str) -> str:
        if token[TYP] in (_STRING, _RAW_STRING):
            return self.unquote(token[VAL])
        self.unexpected(token, context)
        raise AssertionError("unreachable")

    def command(self, first: RawItem) -> n.CommandNode:
        """Command: operand (space operand)*, ended by '|', ')' or '}}'; ``first`` is next.

        Operand: term .Field*; term: literal | function | . | $var | .Field | '(' pipeline ')'.
        Operands are read in this loop rather than by a method of their own, and the item
        reads are inline (``i`` is ``self.i``, written back before any call or error that reads
        it): this is the parser's hottest code.
        """
        tr = self.tree
        cmd = _new(_CommandNode)  # n.CommandNode(tr, first[POS]) (see _new)
        cmd.tr = tr
        cmd.pos = first[POS]
        args = cmd.args = []
        items, n_items = self.items, self.n_items
        last = items[-1]
        i = self.i
        while True:
            token = items[i] if i < n_items else last  # token = self.next_non_space()
            i += 1
            while token[TYP] is _SPACE:
                token = items[i] if i < n_items else last
                i += 1
            typ = token[TYP]
            # Most frequent kinds first. (``self.i`` is written before the calls that read it.)
            if typ is _FIELD:
                val = token[VAL]
                field = _new(_FieldNode)  # n.FieldNode(tr, token[POS], val) (see _new)
                field.tr = tr
                field.ident = val[1:].split(".")
                second = val.find(".", 1)
                # A chain in one item: Go's chain() puts it at its second field.
                field.pos = token[POS] + second if second > 0 else token[POS]
                node: Optional[n.Node] = field
            elif typ is _IDENTIFIER:
                if not self.has_function(token[VAL]):
                    self.i = i
                    self.errorf(f"function {gofmt.quote(token[VAL])} not defined")
                node = _new(_IdentifierNode)  # n.IdentifierNode(tr, token[POS], token[VAL]) (see _new)
                node.tr = tr
                node.pos = token[POS]
                node.ident = token[VAL]
            elif typ is _STRING or typ is _RAW_STRING:
                val = token[VAL]
                if typ is _STRING and "\\" not in val:
                    # The lexer's "..." without escapes: no quote or newline inside to refuse.
                    node = _new(_StringNode)  # n.StringNode(tr, token[POS], val, val[1:-1]) (see _new)
                    node.tr = tr
                    node.pos = token[POS]
                    node.quoted = val
                    node.text = val[1:-1]
                else:
                    self.i = i
                    node = n.StringNode(tr, token[POS], val, self.unquote(val))
            elif typ is _VARIABLE:
                self.i = i
                node = self.use_var(token)
            elif typ is _DOT:
                node = _new(_DotNode)  # n.DotNode(tr, token[POS]) (see _new)
                node.tr = tr
                node.pos = token[POS]
            elif typ is _NIL:
                node = n.NilNode(tr, token[POS])
            elif typ is _BOOL:
                node = n.BoolNode(tr, token[POS], token[VAL] == "true")
            elif typ is _NUMBER or typ is _CHAR_CONSTANT or typ is _COMPLEX:
                try:
                    node = literals.new_number(tr, token[POS], token[VAL], typ)
                except ValueError as e:
                    self.i = i
                    self.errorf(str(e))
            elif typ is _LEFT_PAREN:
                self.i = i
                if self.paren_depth >= MAX_PAREN_DEPTH:
                    self.errorf("max expression depth exceeded")
                self.paren_depth += 1
                try:
                    node = self.pipeline("parenthesized pipeline", _RIGHT_PAREN)
                finally:
                    self.paren_depth -= 1
                i = self.i
            else:  # no operand here: this token ends the command (checked below)
                node = None
            if node is not None:
                token = items[i] if i < n_items else last  # token = self.next()
                before = items[i - 1]  # the operand's last item
                if token[TYP] is _FIELD and before[POS] + len(before[VAL]) == token[POS]:
                    self.i = i
                    node = self.chain(node, token)
                    i = self.i
                    token = items[i]  # (chain stopped on it: it is there)
                    before = items[i - 1]
                args.append(node)
                i += 1
                typ = token[TYP]
                if typ is _SPACE:
                    continue
                if (before[POS] + len(before[VAL]) != token[POS] and typ is not _RIGHT_DELIM
                        and typ is not _RIGHT_PAREN and typ is not _PIPE):
                    i -= 1  # a space the compact stream left out: the next operand starts here
                    continue
            if typ is _RIGHT_DELIM or typ is _RIGHT_PAREN:
                i -= 1  # (the caller reads it again, past it, before any error)
            elif typ is not _PIPE:
                self.i = i
                self.unexpected(token, "operand")
            break
        self.i = i
        if not args:
            self.errorf("empty command")
        return cmd

    def chain(self, node: n.Node, token: RawItem) -> n.Node:
        """``node`` followed by the fields from ``token`` (the next item) on: Go's chain."""
        items, n_items, i = self.items, self.n_items, self.i
        pos = token[POS]
        fields: list[str] = []
        while True:
            val = token[VAL]
            fields.extend(val[1:].split("."))  # a FIELD item is ".name", or more in the compact stream
            end = token[POS] + len(val)
            i += 1
            token = items[i] if i < n_items else items[-1]
            if token[TYP] is not _FIELD or token[POS] != end:  # (a gap: a space left out)
                break
        self.i = i
        if i >= self.fetched:
            self.fetched = i + 1
        if isinstance(node, (n.FieldNode, n.VariableNode)):
            # Go builds a new node from the chain's text at the chain's position: the
            # same as extending this one (fresh from the term, shared with nothing).
            node.ident.extend(fields)
            node.pos = pos
            return node
        if isinstance(node, (n.BoolNode, n.StringNode, n.NumberNode, n.NilNode, n.DotNode)):
            self.errorf(f"unexpected . after term {gofmt.quote(str(node))}")
        return n.ChainNode(self.tree, pos, node, fields)

    def use_var(self, token: RawItem) -> n.Node:
        v = n.VariableNode(self.tree, token[POS], token[VAL])
        if v.ident[0] in self.vars:
            return v
        self.errorf(f"undefined variable {gofmt.quote(v.ident[0])}")
        raise AssertionError("unreachable")

    def unquote(self, s: str) -> str:
        try:
            return literals.unquote(s)
        except ValueError:
            self.errorf("invalid syntax")
            raise AssertionError("unreachable") from None


#: The parser's commonest nodes are made as ``_new(cls)`` and their fields set where they are
#: parsed, as their ``__init__`` would set them: calling a class with an ``__init__`` in Python
#: runs a frame of its own through the interpreter's generic call path (~1.8K instructions a
#: node, ~1.2K this way; a chart parses ~20K nodes). tests/gotemplate/test_parser*.py compare
#: every field with the nodes' own constructors' (``bench/parse.py --trees-against``).
_new = object.__new__
_TextNode, _PipeNode, _CommandNode = n.TextNode, n.PipeNode, n.CommandNode
_ListNode, _EndNode, _ActionNode, _DotNode = n.ListNode, n.EndNode, n.ActionNode, n.DotNode
_FieldNode, _IdentifierNode, _StringNode = n.FieldNode, n.IdentifierNode, n.StringNode

# Item types as module constants: reading a member off an Enum class costs ~10x more.
_ASSIGN = ItemType.ASSIGN
_BLOCK = ItemType.BLOCK
_BOOL = ItemType.BOOL
_BREAK = ItemType.BREAK
_CHAR = ItemType.CHAR
_CHAR_CONSTANT = ItemType.CHAR_CONSTANT
_COMMENT = ItemType.COMMENT
_COMPLEX = ItemType.COMPLEX
_CONTINUE = ItemType.CONTINUE
_DECLARE = ItemType.DECLARE
_DEFINE = ItemType.DEFINE
_DOT = ItemType.DOT
_ELSE = ItemType.ELSE
_END = ItemType.END
_EOF = ItemType.EOF
_ERROR = ItemType.ERROR
_FIELD = ItemType.FIELD
_IDENTIFIER = ItemType.IDENTIFIER
_IF = ItemType.IF
_LEFT_DELIM = ItemType.LEFT_DELIM
_LEFT_PAREN = ItemType.LEFT_PAREN
_NIL = ItemType.NIL
_NUMBER = ItemType.NUMBER
_PIPE = ItemType.PIPE
_RANGE = ItemType.RANGE
_RAW_STRING = ItemType.RAW_STRING
_RIGHT_DELIM = ItemType.RIGHT_DELIM
_RIGHT_PAREN = ItemType.RIGHT_PAREN
_SPACE = ItemType.SPACE
_STRING = ItemType.STRING
_TEMPLATE = ItemType.TEMPLATE
_TEXT = ItemType.TEXT
_VARIABLE = ItemType.VARIABLE
_WITH = ItemType.WITH

#: Keywords that start a control action (anything else starts a pipeline).
_CONTROL = frozenset({
    ItemType.BLOCK, ItemType.BREAK, ItemType.CONTINUE, ItemType.ELSE, ItemType.END, ItemType.IF,
    ItemType.RANGE, ItemType.TEMPLATE, ItemType.WITH,
})

_OPERAND_START = frozenset(
    {
        ItemType.BOOL,
        ItemType.CHAR_CONSTANT,
        ItemType.COMPLEX,
        ItemType.DOT,
        ItemType.FIELD,
        ItemType.IDENTIFIER,
        ItemType.NUMBER,
        ItemType.NIL,
        ItemType.RAW_STRING,
        ItemType.STRING,
        ItemType.VARIABLE,
        ItemType.LEFT_PAREN,
    }
)
