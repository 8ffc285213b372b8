"""Compile a parse tree that already ran into one Python function (generated source), for
processes that render a template set again (see :meth:`environment.TemplateSet.generate_code`).

The closures of :mod:`compiler` cost a Python call per node on every run (~450 instructions
each: a text, an action, an ``if``, its body, a field read, a call site and its words...). Here
a tree becomes the source of one function where statements are Python statements: texts are
appended, ``if``/``with``/``range`` are Python control flow whose bodies are inline, the
commonest words are read inline (``.a.b`` and ``$x.a.b`` as map keys, a variable, ``.``, a
literal, a parenthesized pipeline), and a call of one of the set's functions is made as its
call site's caller (:mod:`callsite`) makes it, for executions with the set's function table.
Everything else is a call of the compiler's own closure for that node, which also gives every
error: an inline read that does not find its map keys starts over in the closure (reading keys
has no effects), so values and Go's error texts are the closures' own.

Generating and compiling source (mostly CPython's ``compile``) costs what the code saves in
~200 runs of the tree, so it is done only for trees that ran, when a process renders their set
again and again (``engine/render.py``'s ``GENERATE_CODE_AT``). A body
of a branch that never ran stays the compiler's lazy branch (compiled, and unpickled from the
memo, when it first runs): it is not read here, so the memo still stores only what ran.

Generated names: ``st`` (the state), ``out``/``append`` (its output), ``vs`` (its variables),
``v`` (the value of the pipeline just evaluated), ``r`` (a receiver while reading keys), ``kN``
(objects the code uses: texts, nodes, closures, given to the maker as parameters), ``dN``/``bN``
(the dot and whether it is boxed, ``d0``/``b0`` the function's own), ``mN`` (variable marks),
``xN`` (range indexes).
"""
from __future__ import annotations

import builtins

from helm_core.gotemplate import callsite, compiler
from helm_core.gotemplate import nodes as n
from helm_core.gotemplate import runtime as rt

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Optional

#: Map keys read inline in one field chain (longer chains call the closure).
MAX_INLINE_KEYS = 8
#: Nesting of ``range`` bodies inline (each is a ``for`` and a ``try``: CPython allows 20 nested
#: blocks); deeper ones, and ``if``/``with`` deeper than :data:`MAX_DEPTH`, call closures.
MAX_LOOPS = 6
MAX_DEPTH = 40

#: What generated code reads besides its maker's parameters.
_GLOBALS: dict[str, Any] = {
    "__builtins__": builtins,
    "MISSING": rt.MISSING,
    "is_true": rt.is_true,
    "print_value": rt.print_value,
    "range_items": rt.range_items,
    "BreakLoop": rt.BreakLoop,
    "ContinueLoop": rt.ContinueLoop,
    "UNWRAPPED": rt.UNWRAPPED,
}


#: A piped value that passes ``callsite.final_checker``'s test for its type, as an expression
#: (``{0}``: the value's name); other types call the checker.
_PASSES = {
    "interface {}": "{0} is not None",
    "string": "{0}.__class__ is str",
    "map[string]interface {}": "{0}.__class__ is dict",
}


def generate(tree: n.Tree, funcs: dict[str, rt.Plan]) -> Optional[compiler.Run]:
    """``tree``'s function, or None where its source could not be compiled (nesting past
    CPython's limits): the closures then stay in use. Calls of ``funcs`` (the executing set's
    function table) are made inline, for executions with that table."""
    if tree.root is None:
        return None
    source, consts = function_source(tree, funcs)
    try:
        code = compile(source, f"<template {tree.name}>", "exec")
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return None
    namespace: dict[str, Any] = {}
    exec(code, _GLOBALS, namespace)  # defines the maker only
    run: compiler.Run = namespace["make"](*consts)
    return run


def function_source(tree: n.Tree, funcs: Optional[dict[str, rt.Plan]] = None) -> tuple[str, list[Any]]:
    """The source of ``make(k0, k1, ...)``, which returns ``tree``'s function, and the values
    of its parameters (for tests and inspection)."""
    gen = _Generator(funcs)
    assert tree.root is not None
    gen.block(tree.root, "d0", "b0", loops=0, depth=0)
    if not gen.lines:
        gen.lines.append("pass")
    params = ", ".join(f"k{i}" for i in range(len(gen.consts)))
    head = [f"def make({params}):", "    def run(st, d0, b0):",
            "        out = st.out", "        append = out.append", "        vs = st.vars"]
    return "\n".join(head + [" " * 8 + line for line in gen.lines] + ["    return run", ""]), gen.consts


class _Generator:
    def __init__(self, funcs: Optional[dict[str, rt.Plan]]) -> None:
        self.funcs = funcs
        self.lines: list[str] = []
        self.consts: list[Any] = []
        self._ids: dict[int, str] = {}
        self._names = 0
        self._indent = ""

    # -- helpers ------------------------------------------------------------
    def const(self, value: Any) -> str:
        """The parameter holding ``value`` (one per object)."""
        name = self._ids.get(id(value))
        if name is None:
            name = self._ids[id(value)] = f"k{len(self.consts)}"
            self.consts.append(value)
        return name

    def name(self, prefix: str) -> str:
        self._names += 1
        return f"{prefix}{self._names}"

    def emit(self, line: str) -> None:
        self.lines.append(self._indent + line)

    def indented(self) -> _Indent:
        return _Indent(self)

    # -- statements -----------------------------------------------------------
    def block(self, lst: n.ListNode, d: str, b: str, *, loops: int, depth: int) -> None:
        for node in lst.nodes:
            self.statement(node, d, b, loops=loops, depth=depth)

    def statement(self, node: n.Node, d: str, b: str, *, loops: int, depth: int) -> None:
        if isinstance(node, n.TextNode):
            self.emit(f"append({self.const(node.text)})")
        elif isinstance(node, n.CommentNode):
            pass
        elif isinstance(node, n.ActionNode):
            self.pipeline(node.pipe, d, b)
            if not node.pipe.decl:
                self.emit("if v.__class__ is str:")
                self.emit("    append(v)")
                self.emit("else:")
                self.emit(f"    print_value(st, {self.const(node)}, v)")
        elif isinstance(node, (n.IfNode, n.WithNode)) and depth < MAX_DEPTH:
            self.if_with(node, d, b, loops=loops, depth=depth + 1)
        elif isinstance(node, n.RangeNode) and depth < MAX_DEPTH and loops < MAX_LOOPS:
            self.range(node, d, b, loops=loops + 1, depth=depth + 1)
        elif isinstance(node, n.BreakNode):
            self.emit("raise BreakLoop()")
        elif isinstance(node, n.ContinueNode):
            self.emit("raise ContinueLoop()")
        elif isinstance(node, n.ListNode):
            self.block(node, d, b, loops=loops, depth=depth)
        else:  # {{template}}, and control nested too deep
            run = compiler._node(node)
            if run is not None:
                self.emit(f"{self.const(run)}(st, {d}, {b})")

    def body(self, node: n.BranchNode, else_part: bool, d: str, b: str, *, loops: int, depth: int) -> None:
        """A branch's body inline if it ran (it was read), else the compiler's lazy branch."""
        if node.entered & (2 if else_part else 1):
            lst = node.else_list if else_part else node.list
            if lst is not None:
                start = len(self.lines)
                self.block(lst, d, b, loops=loops, depth=depth)
                if len(self.lines) > start:
                    return
            self.emit("pass")
            return
        self.emit(f"{self.const(compiler._branch(node, else_part=else_part))}(st, {d}, {b})")

    def if_with(self, node: n.BranchNode, d: str, b: str, *, loops: int, depth: int) -> None:
        mark = self.name("m")
        self.emit(f"{mark} = len(vs)")
        self.pipeline(node.pipe, d, b)
        self.emit("if v if v.__class__ is bool else is_true(v):")
        with self.indented():
            if isinstance(node, n.WithNode):
                inner, inner_b = self.name("d"), self.name("b")
                self.emit(f"{inner}, {inner_b} = v, False")
                self.body(node, False, inner, inner_b, loops=loops, depth=depth)
            else:
                self.body(node, False, d, b, loops=loops, depth=depth)
        if node.has_else:
            self.emit("else:")
            with self.indented():
                self.body(node, True, d, b, loops=loops, depth=depth)
        self.emit(f"del vs[{mark}:]")

    def range(self, node: n.RangeNode, d: str, b: str, *, loops: int, depth: int) -> None:
        """As :func:`compiler._range` runs it."""
        outer, mark = self.name("m"), self.name("m")
        index, elem, eb = self.name("x"), self.name("d"), self.name("b")
        decl = [v.ident[0] for v in node.pipe.decl]
        at = self.const(rt.last_touched(node.pipe))
        self.emit(f"{outer} = len(vs)")
        self.pipeline(node.pipe, d, b)
        if rt.ends_in_and_or(node.pipe):
            self.emit(f"items = range_items(st, st.at_node if st.at_node is not None else {at}, v, {len(decl)})")
        else:
            self.emit(f"items = range_items(st, {at}, v, {len(decl)})")
        self.emit("if items is None:")
        with self.indented():
            if node.has_else:
                self.body(node, True, d, b, loops=loops - 1, depth=depth)
            else:
                self.emit("pass")
        self.emit("else:")
        with self.indented():
            self.emit(f"{mark} = len(vs)")
            self.emit("tick = st.budget.tick")
            self.emit(f"for {index}, {elem}, {eb} in items:")
            with self.indented():
                self.emit("tick(out)")
                self.range_vars(node, decl, index, elem, eb)
                self.emit("try:")
                with self.indented():
                    self.body(node, False, elem, eb, loops=loops, depth=depth)
                self.emit("except ContinueLoop:")
                self.emit("    pass")
                self.emit("except BreakLoop:")
                self.emit(f"    del vs[{mark}:]")
                self.emit("    break")
                self.emit(f"del vs[{mark}:]")
        self.emit(f"del vs[{outer}:]")

    def range_vars(self, node: n.RangeNode, decl: list[str], index: str, elem: str, eb: str) -> None:
        if not decl:
            return
        if node.pipe.is_assign:
            where = self.const(node)
            if len(decl) > 1:
                self.emit(f"e = st.var({where}, {decl[0]!r})")
                self.emit(f"e[1], e[2] = {index}, False")
                self.emit(f"e = st.var({where}, {decl[1]!r})")
            else:
                self.emit(f"e = st.var({where}, {decl[0]!r})")
            self.emit(f"e[1], e[2] = {elem}, {eb}")
            return
        self.emit("e = vs[-1]")
        self.emit(f"e[1], e[2] = {elem}, {eb}")
        if len(decl) > 1:
            self.emit("e = vs[-2]")
            self.emit(f"e[1], e[2] = {index}, False")

    # -- pipelines ----------------------------------------------------------------
    def pipeline(self, pipe: n.PipeNode, d: str, b: str) -> None:
        """Lines leaving ``pipe``'s value in ``v``, its declarations or assignments done."""
        if not pipe.cmds:
            self.emit(f"v = {self.const(compiler._pipeline(pipe))}(st, {d}, {b})")
            return
        self.first_command(pipe.cmds[0], d, b)
        for cmd in pipe.cmds[1:]:
            self.call(cmd, compiler._command(cmd, piped=True), d, b, ", v")
        if not pipe.decl:
            return
        if pipe.is_assign:  # only an assignment to an undefined variable reports a position
            at = self.const(rt.last_touched(pipe))
            for var in pipe.decl:
                self.emit(f"e = st.var({at}, {var.ident[0]!r})")
                self.emit("e[1], e[2] = v, False")
        else:
            for var in pipe.decl:
                self.emit(f"vs.append([{var.ident[0]!r}, v, False])")

    def first_command(self, cmd: n.CommandNode, d: str, b: str) -> None:
        """``v`` = the value of a pipeline's first command (nothing piped in)."""
        command = compiler._command(cmd, piped=False)
        closure = f"{self.const(command)}(st, {d}, {b})"
        word = cmd.args[0]
        if len(cmd.args) == 1 and isinstance(word, n.FieldNode) and len(word.ident) <= MAX_INLINE_KEYS:
            self.emit("v = MISSING")
            self.keys(d, word.ident)
        elif len(cmd.args) == 1 and isinstance(word, n.VariableNode) and len(word.ident) <= MAX_INLINE_KEYS + 1:
            self.emit("v = MISSING")
            self.emit("for e in reversed(vs):")
            self.emit(f"    if e[0] == {word.ident[0]!r}:")
            with self.indented(), self.indented():
                if len(word.ident) == 1:
                    self.emit("v = e[1]")
                else:
                    self.keys("e[1]", word.ident[1:])
                self.emit("break")
        else:
            self.call(cmd, command, d, b, "")
            return
        self.emit("if v is MISSING:")
        self.emit(f"    v = {closure}")

    def call(self, cmd: n.CommandNode, command: compiler.Cmd, d: str, b: str, piped: str) -> None:
        """``v`` = the command's value. A function that ran is called inline (:meth:`inline_call`),
        else its caller at once when made for the executing set's functions (the site's own
        test, see ``compiler._call_site``), else the command's closure."""
        site = getattr(command, "site", None)
        if site is None:
            self.emit(f"v = {self.const(command)}(st, {d}, {b}{piped})")
            return
        ident = cmd.args[0]
        plan = self.funcs.get(ident.ident) if self.funcs is not None and isinstance(ident, n.IdentifierNode) else None
        if plan is None or len(self._indent) >= 4 * MAX_DEPTH or not self.inline_call(cmd, plan, d, b, piped):
            self.emit(f"t = {self.const(site)}[0]")
            self.emit("if st.funcs is t[0]:")
            self.emit(f"    v = t[2](st, {d}, {b}{piped})")
        self.emit("else:")
        self.emit(f"    v = {self.const(command)}(st, {d}, {b}{piped})")

    def inline_call(self, cmd: n.CommandNode, plan: rt.Plan, d: str, b: str, piped: str) -> bool:
        """``if st.funcs is <the table plan was found in>:`` and the call as the site's caller
        makes it (``callsite``: words read, the piped value checked, the budget, Go's ``error
        calling``); False (nothing emitted) for what ``callsite.site_call`` leaves to others."""
        fn, _, _, special = plan
        words = cmd.args[1:]
        typed = callsite.site_types(plan, len(words), bool(piped))
        if special is not None or typed is None:
            return False
        types, final_type = typed
        ident = cmd.args[0]
        assert isinstance(ident, n.IdentifierNode)
        self.emit(f"if st.funcs is {self.const(self.funcs)}:")
        with self.indented():
            argv = []
            if piped:
                argv.append(self.name("a"))
                self.emit(f"{argv[-1]} = v")  # words may be pipelines that set v
            values = [self.word(compiler._arg(word), typ, d, b) for word, typ in zip(words, types, strict=True)]
            if piped:  # checked after the words, against where Go stood after the last one
                last = compiler._arg(words[-1]) if words else None
                checker = f"{argv[0]} = {self.const(callsite.final_checker(final_type, last, ident))}(st, {argv[0]})"
                passes = _PASSES.get("interface {}" if final_type in rt.ANY_TYPES else final_type)
                if passes is None:
                    self.emit(checker)
                else:  # the checker's own test, for the commonest types: it words the failures
                    self.emit(f"if not ({passes.format(argv[0])}):")
                    self.emit(f"    {checker}")
            argv = values + argv
            self.emit("budget = st.budget")
            self.emit("if budget.expired:")
            self.emit("    raise budget.exceeded('timeout_s')")
            self.emit("try:")
            self.emit(f"    v = {self.const(fn)}({', '.join(argv)})")
            self.emit("    if (v.__class__ is str or v.__class__ is list) and len(v) > budget.max_items:")
            self.emit("        budget.check_result(v)")
            self.emit("    failure = None")
            self.emit("except UNWRAPPED:")
            self.emit("    raise")
            self.emit("except Exception as error:")
            self.emit(f"    failure = f'error calling {{{self.const(ident.ident)}}}: {{error}}'")
            self.emit("if failure is not None:")  # raised outside the handler, as callsite does
            self.emit(f"    raise st.error({self.const(cmd)}, failure)")
        return True

    def word(self, arg: rt.ArgEval, typ: str, d: str, b: str) -> str:
        """The name of a local holding a call's word (``callsite.word_kind``'s reading of it)."""
        kind, extra = callsite.word_kind(arg, typ)
        node = arg.node  # type: ignore[attr-defined]
        name = self.name("a")
        general = f"{name} = {self.const(arg)}(st, {d}, {b}, {self.const(typ)})"
        if kind == "c":
            return self.const(extra[0])
        if kind == "d":
            return d
        if kind == "p":  # an interface {} parameter takes the pipeline's value as it is
            self.pipeline(node, d, b)
            self.emit(f"{name} = v")
            return name
        if kind == "g" and typ == "string" and isinstance(node, n.FieldNode) and len(node.ident) <= MAX_INLINE_KEYS:
            # a string read from map keys is passed as it is (validate_type); else the word's
            # evaluator reads it again and checks it
            self.emit(f"{name} = MISSING")
            self.keys(d, node.ident, name)
            self.emit(f"if {name}.__class__ is not str:")
            self.emit(f"    {general}")
            return name
        if kind.startswith("k"):
            self.emit(f"{name} = MISSING")
            self.keys(d, node.ident, name)
        elif kind == "v":
            self.emit(f"{name} = MISSING")
            self.emit("for e in reversed(vs):")
            self.emit(f"    if e[0] == {node.ident[0]!r}:")
            self.emit(f"        {name} = e[1]")
            self.emit("        break")
        else:
            self.emit(general)
            return name
        self.emit(f"if {name} is MISSING:")
        self.emit(f"    {general}")
        return name

    def keys(self, receiver: str, idents: list[str], target: str = "v") -> None:
        """``target`` = ``receiver[a][b]...`` where each step is a map holding the key (else unset)."""
        self.emit(f"r = {receiver}")
        depth = 0
        for i, key in enumerate(idents):
            self.emit("    " * depth + f"if r.__class__ is dict and {key!r} in r:")
            into = target if i == len(idents) - 1 else "r"
            self.emit("    " * (depth + 1) + f"{into} = r[{key!r}]")
            depth += 1


class _Indent:
    def __init__(self, gen: _Generator) -> None:
        self.gen = gen

    def __enter__(self) -> None:
        self.gen._indent += "    "

    def __exit__(self, *exc: object) -> None:
        self.gen._indent = self.gen._indent[:-4]
