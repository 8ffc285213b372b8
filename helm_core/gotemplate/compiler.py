"""Compile parse trees into Python closures, once per tree.

Each node becomes a closure that does only its own work at run time; the tree is never
walked again. Shapes (``st`` is a :class:`runtime.State`, ``dot``/``db`` the current dot
and whether it is boxed):

* statement: ``run(st, dot, db) -> None`` appends output to ``st.out``;
* pipeline: ``pipe(st, dot, db) -> value`` (unboxed, declarations pushed);
* command: ``cmd(st, dot, db, final) -> value``;
* argument: ``arg(st, dot, db, typ) -> value`` checked against Go parameter type ``typ``.

``describe(tree)`` reprints what was compiled, for inspection in tests and debugging.
"""
from __future__ import annotations

from collections.abc import Callable

from helm_core.gotemplate import callsite, gcpause
from helm_core.gotemplate import nodes as n
from helm_core.gotemplate import runtime as rt

# Names for type checkers only: importing typing is start-up time the CLI's render path
# otherwise does without (bench/deferred.py). Type checkers take this name as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal, Optional, Protocol, TypeAlias, overload

    class Cmd(Protocol):
        """A command: ``final`` is the value piped in (MISSING for none, so that a pipeline of one
        command without declarations is the command itself, called without it)."""

        def __call__(self, st: rt.State, dot: Any, db: bool, final: Any = rt.MISSING) -> Any: ...

MISSING = rt.MISSING

Run: TypeAlias = "Callable[[rt.State, Any, bool], None]"
Pipe: TypeAlias = "Callable[[rt.State, Any, bool], Any]"
Arg: TypeAlias = "Callable[[rt.State, Any, bool, Optional[str]], Any]"


def compile_tree(tree: n.Tree) -> Run:
    """The closure executing ``tree`` (cached on the tree: trees are immutable once parsed)."""
    if tree.compiled is None:
        with gcpause.paused():
            tree.compiled = _list(tree.root) if tree.root is not None else _nothing
    return tree.compiled


def describe(tree: n.Tree) -> str:
    """The source the compiled closure stands for (Go's reprint of the tree)."""
    return str(tree.root) if tree.root is not None else ""


def _nothing(st: rt.State, dot: Any, db: bool) -> None:
    return None


# ---------------------------------------------------------------------------
# Statements


def _node(node: n.Node) -> Optional[Run]:
    if isinstance(node, n.TextNode):
        text = node.text

        def run_text(st: rt.State, dot: Any, db: bool) -> None:
            st.out.append(text)

        return run_text
    if isinstance(node, n.ActionNode):
        return _action(node)
    if isinstance(node, n.CommentNode):
        return None
    if isinstance(node, n.IfNode):
        return _if_with(node, is_with=False)
    if isinstance(node, n.WithNode):
        return _if_with(node, is_with=True)
    if isinstance(node, n.RangeNode):
        return _range(node)
    if isinstance(node, n.TemplateNode):
        return _template(node)
    if isinstance(node, n.BreakNode):

        def run_break(st: rt.State, dot: Any, db: bool) -> None:
            raise rt.BreakLoop()

        return run_break
    if isinstance(node, n.ContinueNode):

        def run_continue(st: rt.State, dot: Any, db: bool) -> None:
            raise rt.ContinueLoop()

        return run_continue
    if isinstance(node, n.ListNode):
        return _list(node)
    raise AssertionError(f"unknown node: {node!r}")


def _list(lst: n.ListNode) -> Run:
    parts = [r for r in (_node(x) for x in lst.nodes) if r is not None]
    if not parts:
        return _nothing
    if len(parts) == 1:
        return parts[0]
    steps = tuple(parts)

    def run_list(st: rt.State, dot: Any, db: bool) -> None:
        for step in steps:
            step(st, dot, db)

    return run_list


if TYPE_CHECKING:  # the overloads are for type checkers only
    @overload
    def _branch(node: n.BranchNode, *, else_part: Literal[False]) -> Run: ...
    @overload
    def _branch(node: n.BranchNode, *, else_part: bool) -> Optional[Run]: ...
def _branch(node: n.BranchNode, *, else_part: bool) -> Optional[Run]:
    """A body of an if/with/range, compiled (and, from the memo, unpickled) the first time it runs.

    Charts guard whole features behind values that are off by default; their branches
    never run in most renders, so compiling them up front was most of a short run's work.
    """
    if else_part and not node.has_else:
        return None
    compiled: Optional[Run] = None

    def run_branch(st: rt.State, dot: Any, db: bool) -> None:
        nonlocal compiled
        if compiled is None:
            with gcpause.paused():
                body = node.else_list if else_part else node.list
                compiled = _list(body) if body is not None else _nothing
        compiled(st, dot, db)

    return run_branch


def _action(node: n.ActionNode) -> Run:
    pipe = _pipeline(node.pipe)
    if node.pipe.decl:

        def run_decl(st: rt.State, dot: Any, db: bool) -> None:
            pipe(st, dot, db)

        return run_decl
    print_value = rt.print_value

    def run_action(st: rt.State, dot: Any, db: bool) -> None:
        value = pipe(st, dot, db)
        if value.__class__ is str:
            st.out.append(value)
        else:
            print_value(st, node, value)

    return run_action


def _if_with(node: n.BranchNode, *, is_with: bool) -> Run:
    pipe = _pipeline(node.pipe)
    body = _branch(node, else_part=False)
    else_body = _branch(node, else_part=True)
    is_true = rt.is_true

    def run_if(st: rt.State, dot: Any, db: bool) -> None:
        mark = len(st.vars)
        value = pipe(st, dot, db)
        if value if value.__class__ is bool else is_true(value):
            if is_with:
                body(st, value, False)
            else:
                body(st, dot, db)
        elif else_body is not None:
            else_body(st, dot, db)
        del st.vars[mark:]

    return run_if


def _range(node: n.RangeNode) -> Run:
    pipe = _pipeline(node.pipe)
    body = _branch(node, else_part=False)
    else_body = _branch(node, else_part=True)
    decl = [v.ident[0] for v in node.pipe.decl]
    is_assign = node.pipe.is_assign
    num_decl = len(decl)
    at_node = rt.last_touched(node.pipe)
    dynamic = rt.ends_in_and_or(node.pipe)

    def set_vars(st: rt.State, index: Any, elem: Any, eb: bool) -> None:
        if is_assign:
            if num_decl > 1:
                entry = st.var(node, decl[0])
                entry[1], entry[2] = index, False
                entry = st.var(node, decl[1])
                entry[1], entry[2] = elem, eb
            else:
                entry = st.var(node, decl[0])
                entry[1], entry[2] = elem, eb
        else:
            top = st.vars[-1]
            top[1], top[2] = elem, eb
            if num_decl > 1:
                second = st.vars[-2]
                second[1], second[2] = index, False

    def run_range(st: rt.State, dot: Any, db: bool) -> None:
        mark0 = len(st.vars)
        value = pipe(st, dot, db)
        at = st.at_node if dynamic and st.at_node is not None else at_node
        items = rt.range_items(st, at, value, num_decl)
        if items is None:
            if else_body is not None:
                else_body(st, dot, db)
        else:
            mark = len(st.vars)
            tick = st.budget.tick
            for index, elem, eb in items:
                tick(st.out)
                if num_decl:
                    set_vars(st, index, elem, eb)
                try:
                    body(st, elem, eb)
                except rt.ContinueLoop:
                    pass
                except rt.BreakLoop:
                    del st.vars[mark:]
                    break
                del st.vars[mark:]
        del st.vars[mark0:]

    return run_range


def _template(node: n.TemplateNode) -> Run:
    pipe = _pipeline(node.pipe) if node.pipe is not None else None
    name = node.name

    def run_template(st: rt.State, dot: Any, db: bool) -> None:
        target = st.tset.lookup_compiled(name)
        if target is None:
            raise st.error(node, f"template {_quote(name)} not defined")
        if st.depth >= rt.MAX_EXEC_DEPTH:
            raise st.error(node, f"exceeded maximum template depth ({rt.MAX_EXEC_DEPTH})")
        st.budget.tick(st.out)
        new_dot = pipe(st, dot, db) if pipe is not None else None
        target(st.child(name, new_dot), new_dot, False)

    return run_template


def _quote(s: str) -> str:
    from helm_core.gotemplate import gofmt

    return gofmt.quote(s)


# ---------------------------------------------------------------------------
# Pipelines and commands


# Builders make one kind of closure each: a function's variables that any closure inside it
# reads are cells, made on every call whichever closure it returns (measurable when thousands
# of nodes are compiled on a first run).

def _pipeline(pipe: n.PipeNode) -> Pipe:
    if len(pipe.cmds) == 1 and not pipe.decl:  # the commonest: the command itself
        return _command(pipe.cmds[0], piped=False)
    cmds = tuple(_command(c, piped=i > 0) for i, c in enumerate(pipe.cmds))
    if len(cmds) == 2 and not pipe.decl:  # ``x | f``: no loop
        return _two_commands(*cmds)
    return _declaring_pipeline(pipe, cmds)


def _two_commands(first: Cmd, second: Cmd) -> Pipe:
    def run_two(st: rt.State, dot: Any, db: bool) -> Any:
        return second(st, dot, db, first(st, dot, db))

    return run_two


def _declaring_pipeline(pipe: n.PipeNode, cmds: tuple[Cmd, ...]) -> Pipe:
    """Any other pipeline: commands in a loop, then its declarations or assignments."""
    decl = [v.ident[0] for v in pipe.decl]
    is_assign = pipe.is_assign
    # Only an assignment to an undefined variable reports a position (st.var's error).
    at_node = (rt.last_touched(pipe) if pipe.cmds else pipe) if decl and is_assign else pipe

    def run_pipe(st: rt.State, dot: Any, db: bool) -> Any:
        value = MISSING
        for cmd in cmds:
            value = cmd(st, dot, db, value)
        for name in decl:
            if is_assign:
                entry = st.var(at_node, name)
                entry[1], entry[2] = value, False
            else:
                st.vars.append([name, value, False])
        return value

    return run_pipe


def _not_a_function(st: rt.State, node: n.Node, cmd: n.CommandNode, final: Any) -> None:
    if len(cmd.args) > 1 or final is not MISSING:
        raise st.error(node, f"can't give argument to non-function {cmd.args[0]}")


def _command(cmd: n.CommandNode, *, piped: bool) -> Cmd:
    """A command; ``piped``: a previous command's value comes in as ``final`` (never MISSING)."""
    first = cmd.args[0]
    args = [_arg(a) for a in cmd.args[1:]] if len(cmd.args) > 1 else []
    if isinstance(first, n.FieldNode):
        if not args and not piped:
            return _fields_command(first)
        return _field_call_command(first, args)
    if isinstance(first, n.ChainNode):
        return _chain_command(first, args)
    if isinstance(first, n.IdentifierNode):
        return _call_site(first, cmd, args, piped)
    if isinstance(first, n.PipeNode):
        return _paren_command(first, cmd)
    if isinstance(first, n.VariableNode):
        return _variable_command(first, cmd, args)
    if isinstance(first, (n.BoolNode, n.StringNode)) and len(cmd.args) == 1:
        return _constant_command(first, cmd)
    return _literal_command(first, cmd)


def _fields_command(field: n.FieldNode) -> Cmd:
    """``.a.b`` alone: map keys read inline."""
    read = _fields_reader(field, tuple(field.ident))

    def run_fields(st: rt.State, dot: Any, db: bool, final: Any = MISSING) -> Any:
        return read(st, dot, db, dot, db)[0]

    return run_fields


def _field_call_command(field: n.FieldNode, args: list[Arg]) -> Cmd:
    """``.a.Method x`` or ``x | .a.b``: the last field may be a method given arguments."""
    idents = tuple(field.ident)

    def run_field(st: rt.State, dot: Any, db: bool, final: Any = MISSING) -> Any:
        return _field_chain(st, field, dot, db, dot, db, idents, args, final)[0]

    return run_field


def _chain_command(chain: n.ChainNode, args: list[Arg]) -> Cmd:
    head = _arg(chain.node)
    fields = tuple(chain.fields)
    chain_at = rt.last_touched(chain.node)

    def run_chain(st: rt.State, dot: Any, db: bool, final: Any = MISSING) -> Any:
        if isinstance(chain.node, n.NilNode):
            raise st.error(chain, f"indirection through explicit nil in {chain}")
        receiver = head(st, dot, db, None)
        return _field_chain(st, chain_at, dot, db, receiver, False, fields, args, final)[0]

    return run_chain


def _paren_command(pipe: n.PipeNode, cmd: n.CommandNode) -> Cmd:
    inner = _pipeline(pipe)

    def run_paren(st: rt.State, dot: Any, db: bool, final: Any = MISSING) -> Any:
        _not_a_function(st, pipe, cmd, final)
        return inner(st, dot, db)

    return run_paren


def _variable_command(var: n.VariableNode, cmd: n.CommandNode, args: list[Arg]) -> Cmd:
    var_name = var.ident[0]
    var_fields = tuple(var.ident[1:])
    # ``$.Values.a`` (the commonest): its fields read as ``.Values.a`` reads them, map keys inline
    read = _fields_reader(var, var_fields) if var_fields and not args else None

    def run_var(st: rt.State, dot: Any, db: bool, final: Any = MISSING) -> Any:
        entry = st.var(var, var_name)
        if read is not None and final is MISSING:
            return read(st, dot, db, entry[1], entry[2])[0]
        if not var_fields:
            _not_a_function(st, var, cmd, final)
            return entry[1]
        return _field_chain(st, var, dot, db, entry[1], entry[2], var_fields, args, final)[0]

    return run_var


def _constant_command(first: n.BoolNode | n.StringNode, cmd: n.CommandNode) -> Cmd:
    const: Any = first.true if isinstance(first, n.BoolNode) else first.text

    def run_const(st: rt.State, dot: Any, db: bool, final: Any = MISSING) -> Any:
        if final is not MISSING:
            _not_a_function(st, first, cmd, final)
        return const

    return run_const


def _literal_command(first: n.Node, cmd: n.CommandNode) -> Cmd:
    """``.``, ``nil``, a number... as a command (with the errors Go gives for arguments)."""
    def run_literal(st: rt.State, dot: Any, db: bool, final: Any = MISSING) -> Any:
        _not_a_function(st, first, cmd, final)
        if isinstance(first, n.DotNode):
            return dot
        if isinstance(first, n.NilNode):
            raise st.error(first, "nil is not a command")
        return rt.constant_value(st, first)

    return run_literal


def _call_site(ident: n.IdentifierNode, call_node: n.Node, args: list[Arg], piped: bool) -> Cmd:
    """A call of function ``ident`` with ``args``, specialised to the function it finds.

    The function comes from the executing set (a set's own functions may differ), so the
    caller made for it (:func:`callsite.site_call`) is kept with the plan it was made for.
    """
    name = ident.ident
    # [(the function table, the plan found there, its caller)]: sets share their table unless
    # they have functions of their own, so one identity test usually replaces the lookup. One
    # triple, replaced whole (another thread may replace it); generated code reads it too
    # (``run_call.site``, codegen).
    site: list[tuple[Any, Optional[rt.Plan], Optional[callsite.SiteCall]]] = [(None, None, None)]

    def run_call(st: rt.State, dot: Any, db: bool, final: Any = MISSING) -> Any:
        funcs, cached_plan, caller = site[0]
        if st.funcs is funcs and caller is not None:
            return caller(st, dot, db, final)
        plan = st.funcs.get(name)
        if plan is None:
            raise st.error(ident, f"{_quote(name)} is not a defined function")
        plan = rt.resolved_plan(st.funcs, name, plan)
        if plan is not cached_plan or caller is None:
            caller = callsite.site_call(plan, name, args, piped, ident, call_node, rebinder(st.funcs, plan)) or (
                callsite.general_call(ident, call_node, plan, name, args))
        site[0] = (st.funcs, plan, caller)
        return caller(st, dot, db, final)

    def rebinder(funcs: Any, plan: rt.Plan) -> callsite.Rebind:
        # Outside run_call: a closure there would make its locals cells, on every call.
        def rebind(compiled: callsite.SiteCall) -> None:  # a warming caller's successor
            made_for = site[0]
            if made_for[0] is funcs and made_for[1] is plan:
                site[0] = (funcs, plan, compiled)

        return rebind

    run_call.site = site  # type: ignore[attr-defined]
    return run_call


FieldsReader: TypeAlias = "Callable[[rt.State, Any, bool, Any, bool], tuple[Any, bool]]"


def _fields_reader(node: n.Node, idents: tuple[str, ...]) -> FieldsReader:
    """``receiver.a.b.c`` with no arguments -> (value, boxed): map keys read inline, the rest
    (methods, struct fields, missing keys and their errors) by :func:`runtime.eval_field`."""
    if len(idents) == 1:
        return _one_field_reader(node, idents[0])
    if len(idents) == 2:
        return _two_fields_reader(node, *idents)
    return _fields_loop_reader(node, idents)


def _one_field_reader(node: n.Node, only: str) -> FieldsReader:
    eval_field = rt.eval_field

    def read_one(st: rt.State, dot: Any, db: bool, receiver: Any, boxed: bool) -> tuple[Any, bool]:
        if receiver.__class__ is dict and only in receiver:
            return receiver[only], True
        return eval_field(st, node, receiver, boxed, only, dot, db, None, MISSING)

    return read_one


def _two_fields_reader(node: n.Node, first: str, second: str) -> FieldsReader:
    eval_field = rt.eval_field

    def read_two(st: rt.State, dot: Any, db: bool, receiver: Any, boxed: bool) -> tuple[Any, bool]:
        if receiver.__class__ is dict and first in receiver:
            receiver = receiver[first]
            if receiver.__class__ is dict and second in receiver:
                return receiver[second], True
            return eval_field(st, node, receiver, True, second, dot, db, None, MISSING)
        receiver, boxed = eval_field(st, node, receiver, boxed, first, dot, db, None, MISSING)
        if receiver.__class__ is dict and second in receiver:
            return receiver[second], True
        return eval_field(st, node, receiver, boxed, second, dot, db, None, MISSING)

    return read_two


def _fields_loop_reader(node: n.Node, idents: tuple[str, ...]) -> FieldsReader:
    eval_field = rt.eval_field

    def read(st: rt.State, dot: Any, db: bool, receiver: Any, boxed: bool) -> tuple[Any, bool]:
        for name in idents:
            if receiver.__class__ is dict and name in receiver:
                receiver, boxed = receiver[name], True
            else:
                receiver, boxed = eval_field(st, node, receiver, boxed, name, dot, db, None, MISSING)
        return receiver, boxed

    return read


def _field_chain(
    st: rt.State,
    node: n.Node,
    dot: Any,
    db: bool,
    receiver: Any,
    boxed: bool,
    idents: tuple[str, ...],
    args: Optional[list[Arg]],
    final: Any,
) -> tuple[Any, bool]:
    """Go's ``evalFieldChain``: all fields but the last take no arguments."""
    last = len(idents) - 1
    for i, name in enumerate(idents):
        if i < last:
            if receiver.__class__ is dict and name in receiver:
                receiver, boxed = receiver[name], True
                continue
            receiver, boxed = rt.eval_field(st, node, receiver, boxed, name, dot, db, None, MISSING)
        else:
            if receiver.__class__ is dict and not args and final is MISSING and name in receiver:
                return receiver[name], True
            return rt.eval_field(st, node, receiver, boxed, name, dot, db, args, final)
    raise AssertionError("empty field chain")


# ---------------------------------------------------------------------------
# Arguments


def _arg(node: n.Node) -> Arg:
    ev = _arg_inner(node)
    # Its word: callers read literals from it, and errors find where Go would point from it
    # (runtime.arg_at; worked out only then: most words never fail).
    ev.node = node  # type: ignore[attr-defined]
    return ev


def _arg_inner(node: n.Node) -> Arg:
    if isinstance(node, n.DotNode):
        return _dot_arg(node)
    if isinstance(node, n.FieldNode):
        return _field_arg(node)
    if isinstance(node, n.VariableNode):
        return _variable_arg(node)
    if isinstance(node, n.PipeNode):
        return _pipe_arg(node)
    if isinstance(node, n.IdentifierNode):
        return _call_arg(node)
    if isinstance(node, n.ChainNode):
        return _chain_arg(node)
    if isinstance(node, n.StringNode):
        return _string_arg(node)
    return _literal_arg(node)


def _dot_arg(node: n.DotNode) -> Arg:
    validate = rt.validate_type

    def arg_dot(st: rt.State, dot: Any, db: bool, typ: Optional[str]) -> Any:
        return validate(st, node, dot, db, typ)

    return arg_dot


def _field_arg(node: n.FieldNode) -> Arg:
    validate = rt.validate_type
    read = _fields_reader(node, tuple(node.ident))

    def arg_field(st: rt.State, dot: Any, db: bool, typ: Optional[str]) -> Any:
        value, boxed = read(st, dot, db, dot, db)
        return validate(st, node, value, boxed, typ)

    return arg_field


def _variable_arg(node: n.VariableNode) -> Arg:
    validate = rt.validate_type
    var_name = node.ident[0]
    var_fields = tuple(node.ident[1:])
    read_var = _fields_reader(node, var_fields) if var_fields else None

    def arg_var(st: rt.State, dot: Any, db: bool, typ: Optional[str]) -> Any:
        entry = st.var(node, var_name)
        value, boxed = entry[1], entry[2]
        if read_var is not None:
            value, boxed = read_var(st, dot, db, value, boxed)
        return validate(st, node, value, boxed, typ)

    return arg_var


def _pipe_arg(node: n.PipeNode) -> Arg:
    validate = rt.validate_type
    inner = _pipeline(node)
    pipe_at = rt.last_touched(node)
    dynamic = rt.ends_in_and_or(node)

    def arg_pipe(st: rt.State, dot: Any, db: bool, typ: Optional[str]) -> Any:
        value = inner(st, dot, db)
        at = st.at_node if dynamic and st.at_node is not None else pipe_at
        return validate(st, at, value, False, typ)

    arg_pipe.compiled_pipe = inner  # type: ignore[attr-defined]  # for callsite's inline reading
    return arg_pipe


def _call_arg(node: n.IdentifierNode) -> Arg:
    validate = rt.validate_type
    call = _call_site(node, node, [], False)

    def arg_call(st: rt.State, dot: Any, db: bool, typ: Optional[str]) -> Any:
        return validate(st, node, call(st, dot, db, MISSING), False, typ)

    return arg_call


def _chain_arg(node: n.ChainNode) -> Arg:
    validate = rt.validate_type
    head = _arg(node.node)
    fields = tuple(node.fields)
    chain_at = rt.last_touched(node.node)

    def arg_chain(st: rt.State, dot: Any, db: bool, typ: Optional[str]) -> Any:
        if isinstance(node.node, n.NilNode):
            raise st.error(node, f"indirection through explicit nil in {node}")
        receiver = head(st, dot, db, None)
        value, boxed = _field_chain(st, chain_at, dot, db, receiver, False, fields, None, MISSING)
        return validate(st, chain_at, value, boxed, typ)

    return arg_chain


def _string_arg(node: n.StringNode) -> Arg:
    text = node.text

    def arg_string(st: rt.State, dot: Any, db: bool, typ: Optional[str]) -> Any:
        if typ == "string" or typ == "interface {}" or typ == "reflect.Value" or typ is None:
            return text
        return rt.literal_arg(st, node, typ)

    return arg_string


def _literal_arg(node: n.Node) -> Arg:
    def arg_literal(st: rt.State, dot: Any, db: bool, typ: Optional[str]) -> Any:
        return rt.literal_arg(st, node, typ)

    return arg_literal
