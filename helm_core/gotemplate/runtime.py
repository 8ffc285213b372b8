"""Execution-time semantics of Go's text/template (Go's ``exec.go``), used by compiled code.

The compiler turns each tree into closures once; those closures call the helpers here,
which hold Go's rules:

* "boxed" values: a value read out of a map, a range element or a range variable is a Go
  ``interface{}``; it matters only for error texts (``can't evaluate field x in type
  interface {}``) and for nil (a boxed nil gives ``nil pointer evaluating interface {}.x``
  where a missing value just yields nothing). Pipelines unbox their result, as Go does.
* truth (:func:`is_true`), printing (``<no value>`` for nothing), field access on dicts and
  :class:`~helm_core.golib.gotypes.GoObject`, argument checks against a function's
  ``__go_params__``/``__go_variadic__`` signature (functions without one take anything),
  and Go's error messages, raised as :class:`ExecError`.
"""
from __future__ import annotations

import datetime
from collections.abc import Callable, Iterable

from helm_core.errors import SourcePos, TemplateError
from helm_core.golib import gotypes
from helm_core.gotemplate import budget as budget_mod
from helm_core.gotemplate import gofmt
from helm_core.gotemplate import nodes as n
from helm_core.support.limits import RenderLimitExceeded

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Optional, TypeAlias

#: Go's ``maxExecDepth``: nesting of ``{{template}}`` calls.
MAX_EXEC_DEPTH = 100000

#: Marks "no final value" in a pipeline stage (Go's ``missingVal``).
MISSING: Any = object()

NO_VALUE = "<no value>"

#: Go parameter types that accept nil.
_NILLABLE = frozenset(
    {"interface {}", "reflect.Value", "[]interface {}", "[]string", "map[string]interface {}", "[]byte"}
)
#: Go parameter types that take any value (nil included).
ANY_TYPES = frozenset({"interface {}", "reflect.Value"})


class ExecError(TemplateError):
    """A template failed while executing; ``str()`` is Go's exact text.

    ``template: FILE:LINE:COL: executing "NAME" at <NODE>: MSG``. ``pos`` holds the file,
    line and a 1-based column (Go prints the 0-based byte offset, ``go_col``).
    """

    def __init__(
        self,
        message: str,
        *,
        template_name: str,
        pos: Optional[SourcePos] = None,
        go_col: int = 0,
        reason: str = "",
    ) -> None:
        super().__init__(message, pos)
        self.template_name = template_name
        self.go_col = go_col
        #: The bare message after ``at <...>: ``.
        self.reason = reason


class NestingTooDeep(TemplateError):
    """Calls of templates (``include``, ``tpl``) nested past the engine's bound.

    Raised once at the bottom and passed up unchanged: wrapping it at every level, as other
    errors are, would cost time and memory quadratic in the depth."""


#: Errors every level passes up as they are (never wrapped in ``error calling ...``).
PASS_THROUGH = (RenderLimitExceeded, NestingTooDeep)


class BreakLoop(Exception):
    """``{{break}}`` unwinding to its range."""


class ContinueLoop(Exception):
    """``{{continue}}`` unwinding to its range."""


class State:
    """One execution of one template: output, variables, depth and the set's functions."""

    __slots__ = ("tset", "name", "out", "vars", "depth", "missingkey", "funcs", "at_node", "budget")

    def __init__(
        self,
        tset: Any,
        name: str,
        out: list[str],
        vars_: list[list[Any]],
        depth: int,
        missingkey: str,
        funcs: dict[str, Plan],
        budget: budget_mod.Budget = budget_mod.UNLIMITED,
    ) -> None:
        self.tset = tset
        self.name = name
        self.out = out
        #: Variable stack: [name, value, boxed] entries, searched from the top.
        self.vars = vars_
        self.depth = depth
        #: Go's ``missingkey`` option: "zero" (Helm's default), "error" (strict) or "default".
        self.missingkey = missingkey
        #: Function name -> call plan (see :func:`make_plan`).
        self.funcs = funcs
        #: The word ``and``/``or`` stopped at: Go reports some later errors there.
        self.at_node: Optional[n.Node] = None
        #: The render's limits, checked on calls and loop iterations.
        self.budget = budget

    def child(self, name: str, dot: Any) -> State:
        """The state of a ``{{template}}`` call: same output, fresh variables, one level deeper."""
        return State(self.tset, name, self.out, [["$", dot, False]], self.depth + 1, self.missingkey, self.funcs,
                     self.budget)

    # -- errors -------------------------------------------------------------
    def error(self, node: Optional[n.Node], msg: str) -> ExecError:
        """Build Go's ExecError for ``msg`` at ``node`` (raise the result)."""
        if node is None:
            return ExecError(f"template: {self.name}: {msg}", template_name=self.name, reason=msg)
        location = node.tr.location(node.pos)
        file, line, col = location.rsplit(":", 2)
        text = f"template: {location}: executing {gofmt.quote(self.name)} at <{node}>: {msg}"
        return ExecError(
            text,
            template_name=self.name,
            pos=SourcePos(file, int(line), int(col) + 1),
            go_col=int(col),
            reason=msg,
        )

    # -- variables -------------------------------------------------------------
    def var(self, node: n.Node, name: str) -> list[Any]:
        for entry in reversed(self.vars):
            if entry[0] == name:
                return entry  # type: ignore[no-any-return]
        raise self.error(node, f"undefined variable: {name}")


# ---------------------------------------------------------------------------
# Truth and printing


def is_true(value: Any) -> bool:
    """Go's ``isTrue``: the zero value of its type is false; nil is false; structs are true."""
    cls = value.__class__
    if cls is bool or cls is str or cls is dict or cls is list:  # the commonest, tested first
        return bool(value)
    if value is None:
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float, complex, str, bytes, list, tuple, dict)):
        return bool(value)
    if isinstance(value, gotypes.Duration):
        return value.nanoseconds != 0
    return True


def print_value(st: State, node: n.Node, value: Any) -> None:
    """Go's ``printValue``: ``<no value>`` for nothing, else ``fmt.Fprint``."""
    if value is None:
        st.out.append(NO_VALUE)
    elif isinstance(value, str):
        st.out.append(value)
    elif callable(value) and not isinstance(value, gotypes.GoObject):
        raise st.error(node, f"can't print {node} of type {_func_type(value)}")
    else:
        try:
            st.out.append(gofmt.format_value(value))
        except gotypes.FuncError as exc:  # a value that contains itself
            raise st.error(node, str(exc)) from None


def _func_type(fn: Callable[..., Any]) -> str:
    params = getattr(fn, "__go_params__", None)
    if params is None:
        return "func(...interface {}) interface {}"
    if getattr(fn, "__go_variadic__", False):
        params = (*params[:-1], "..." + params[-1])
    return "func(" + ", ".join(params) + ")"


def type_name(value: Any, boxed: bool) -> str:
    """The Go static type of a value as error messages print it."""
    if boxed:
        return "interface {}"
    if isinstance(value, complex):
        return "complex128"
    return gotypes.go_type_name(value)


# ---------------------------------------------------------------------------
# Fields


def eval_field(
    st: State,
    node: n.Node,
    receiver: Any,
    boxed: bool,
    name: str,
    dot: Any,
    dboxed: bool,
    args: Optional[list[Any]],
    final: Any,
) -> tuple[Any, bool]:
    """Go's ``evalField``: ``receiver.name`` (a map key, struct field or method call).

    ``args`` are the compiled argument evaluators of a method call (Go passes the
    command's words), ``final`` the piped-in value or :data:`MISSING`.
    Returns (value, boxed).
    """
    if receiver is None and not boxed:
        if st.missingkey == "error":
            raise st.error(node, f"nil data; no entry for key {gofmt.quote(name)}")
        return None, False
    if receiver is None:
        raise st.error(node, f"nil pointer evaluating interface {{}}.{name}")
    has_args = bool(args) or final is not MISSING
    if isinstance(receiver, dict):
        if isinstance(receiver, gotypes.GoObject) and name in receiver.go_members:
            # A map type with methods (Helm's .Files): Go looks up methods before keys.
            plan = make_plan(receiver.go_field(name))
            return call_function(st, node, node, plan, name, args or [], final, dot, dboxed), False
        if has_args:
            raise st.error(node, f"{name} is not a method but has arguments")
        if name in receiver:
            return receiver[name], True
        if st.missingkey == "error":
            raise st.error(node, f"map has no entry for key {gofmt.quote(name)}")
        return None, st.missingkey == "zero"
    if isinstance(receiver, gotypes.GoObject):
        try:
            value = receiver.go_field(name)
        except KeyError:
            pass
        else:
            if callable(value) and not isinstance(value, gotypes.GoObject):
                return call_function(st, node, node, make_plan(value), name, args or [], final, dot, dboxed), False
            if has_args:
                raise st.error(node, f"{name} has arguments but cannot be invoked as function")
            return value, False
    raise st.error(node, f"can't evaluate field {name} in type {type_name(receiver, boxed)}")


# ---------------------------------------------------------------------------
# Calls


def nillable(typ: str) -> bool:
    return typ in _NILLABLE or typ.startswith("*")


def assignable(value: Any, typ: str) -> bool:
    if typ in ANY_TYPES:
        return True
    if typ == "string":
        return isinstance(value, str)
    if typ == "int":
        return isinstance(value, int) and not isinstance(value, (bool, gotypes.Int64))
    if typ == "int64":
        return isinstance(value, gotypes.Int64)
    if typ == "float64":
        return isinstance(value, float)
    if typ == "bool":
        return isinstance(value, bool)
    if typ == "[]interface {}":
        return isinstance(value, (list, tuple))
    if typ == "[]string":
        return isinstance(value, (list, tuple)) and all(isinstance(x, str) for x in value)
    if typ == "map[string]interface {}":
        return isinstance(value, dict)
    if typ == "[]byte":
        return isinstance(value, bytes)
    if typ == "time.Time":
        return isinstance(value, datetime.datetime)
    if typ.startswith("*") or "." in typ:  # a struct or pointer type: the object's own type
        return isinstance(value, gotypes.GoObject) and value.go_type == typ
    return True


#: Pseudo parameter type: the argument evaluates to (value, boxed), unchecked. ``len`` needs
#: it because Go tells a nil interface ("len of nil pointer") from no value at all.
RAW_ARG = "raw"


def validate_type(st: State, node: n.Node, value: Any, boxed: bool, typ: Optional[str]) -> Any:
    """Go's ``validateType``: may ``value`` be passed where ``typ`` is expected?"""
    if typ is None or value is not None and typ in ANY_TYPES:  # most arguments: checked first
        return value
    cls = value.__class__  # then the commonest typed ones: a string, a map (as assignable says)
    if cls is str and typ == "string" or cls is dict and typ == "map[string]interface {}":
        return value
    if typ == RAW_ARG:
        return value, boxed
    if value is None:
        if not boxed:
            if nillable(typ):
                return None
            raise st.error(node, f"invalid value; expected {typ}")
        if typ in ANY_TYPES:
            return None
        raise st.error(node, f"wrong type for value; expected {typ}; got interface {{}}")
    if not assignable(value, typ):
        raise st.error(node, f"wrong type for value; expected {typ}; got {type_name(value, False)}")
    return value


def literal_arg(st: State, node: n.Node, typ: Optional[str]) -> Any:
    """Go's ``evalArg`` for a literal word (bool, number, string, nil) given the parameter type."""
    if typ == RAW_ARG:
        return (None if isinstance(node, n.NilNode) else constant_value(st, node)), False
    if isinstance(node, n.NilNode):
        if typ is None or nillable(typ):
            return None
        raise st.error(node, f"cannot assign nil to {typ}")
    if typ is None or typ in ANY_TYPES:
        return constant_value(st, node)
    if typ == "bool":
        if isinstance(node, n.BoolNode):
            return node.true
        raise st.error(node, f"expected bool; found {node}")
    if typ == "string":
        if isinstance(node, n.StringNode):
            return node.text
        raise st.error(node, f"expected string; found {node}")
    if typ in ("int", "int64"):
        if isinstance(node, n.NumberNode) and node.is_int:
            return node.int64 if typ == "int" else gotypes.Int64(node.int64)
        raise st.error(node, f"expected integer; found {node}")
    if typ == "float64":
        if isinstance(node, n.NumberNode) and node.is_float:
            return node.float64
        raise st.error(node, f"expected float; found {node}")
    raise st.error(node, f"can't handle {node} for arg of type {typ}")


def constant_value(st: State, node: n.Node) -> Any:
    """The value of a literal where an ``interface{}`` is expected (Go's ``idealConstant``)."""
    if isinstance(node, n.BoolNode):
        return node.true
    if isinstance(node, n.StringNode):
        return node.text
    if isinstance(node, n.NumberNode):
        text = node.text
        if node.is_complex:
            return node.complex128
        is_hex_int = len(text) > 2 and text[0] == "0" and text[1] in "xX" and not any(c in text for c in "pP")
        if node.is_float and not is_hex_int and text[0] != "'" and any(c in text for c in ".eEpP"):
            return node.float64
        if node.is_int:
            return node.int64
        if node.is_uint:
            raise st.error(node, f"{text} overflows int")
        return None
    raise st.error(node, f"can't handle assignment of {node} to empty interface argument")


ArgEval: TypeAlias = "Callable[[State, Any, bool, Optional[str]], Any]"

#: How to call a function: (callable, Go parameter types, variadic, special builtin kind).
Plan: TypeAlias = "tuple[Callable[..., Any], tuple[str, ...], bool, Optional[str]]"


def make_plan(fn: Callable[..., Any]) -> Plan:
    """Read a function's Go signature once; no signature means ``func(...interface{})``."""
    params: Optional[tuple[str, ...]] = getattr(fn, "__go_params__", None)
    if params is None:
        return fn, ("interface {}",), True, getattr(fn, "__go_special__", None)
    return fn, tuple(params), bool(getattr(fn, "__go_variadic__", False)), getattr(fn, "__go_special__", None)


def resolved_plan(plans: dict[str, Plan], name: str, plan: Plan) -> Plan:
    """``plan``, or where its function is deferred (:class:`gotypes.DeferredFunc`), the plan of
    the loaded function, which replaces it in ``plans``: call sites bind that one."""
    fn = plan[0]
    if fn.__class__ is not gotypes.DeferredFunc:
        return plan
    loaded: Plan = (fn.resolve(), plan[1], plan[2], plan[3])
    plans[name] = loaded
    return loaded


def call_function(
    st: State,
    node: n.Node,
    call_node: n.Node,
    plan: Plan,
    name: str,
    args: list[ArgEval],
    final: Any,
    dot: Any,
    dboxed: bool,
) -> Any:
    """Go's ``evalCall``: check the argument count, evaluate and check each argument, call.

    ``args`` evaluate lazily with the expected parameter type (``and``/``or`` stop early);
    each carries its word in ``.node``. Count errors point at ``node`` (the function name),
    a failing call at ``call_node`` (the whole command), as Go's messages do.
    """
    fn, params, variadic, special = plan
    num_in = len(args) + (final is not MISSING)
    if variadic:
        num_fixed = len(params) - 1
        if num_in < num_fixed:
            raise st.error(node, f"wrong number of args for {name}: want at least {num_fixed} got {len(args)}")
    else:
        num_fixed = len(args)
        if num_in != len(params):
            raise st.error(node, f"wrong number of args for {name}: want {len(params)} got {num_in}")
    if special is not None and special in ("and", "or"):
        want = special == "or"
        v: Any = None
        for arg in args:
            st.at_node = last_touched(arg.node)  # type: ignore[attr-defined]
            v = arg(st, dot, dboxed, "reflect.Value")
            if is_true(v) == want:
                return v
        if final is not MISSING:
            v = final
        return v
    if special == "slice" and args:
        return _call_slice(st, node, call_node, plan, name, args, final, dot, dboxed)
    if special == "len" and len(args) == 1:
        value, boxed = args[0](st, dot, dboxed, RAW_ARG)
        if value is None and not boxed:
            raise st.error(call_node, f"error calling {name}: reflect: call of reflect.Value.Type on zero Value")
        args = [_constant_arg(value, args[0])]
    elif special == "len" and final is None:
        raise st.error(call_node, f"error calling {name}: reflect: call of reflect.Value.Type on zero Value")
    argv: list[Any] = []
    if special == "call":
        argv.append(str(args[0].node) if args else gofmt.format_value(final))  # type: ignore[attr-defined]
    i = 0
    while i < num_fixed and i < len(args):
        argv.append(args[i](st, dot, dboxed, params[i]))
        i += 1
    if variadic:
        elem = params[-1]
        while i < len(args):
            argv.append(args[i](st, dot, dboxed, elem))
            i += 1
    if final is not MISSING:
        if variadic:
            t = params[num_in - 1] if num_in - 1 < num_fixed else params[-1]
        else:
            t = params[-1]
        last = arg_at(st, args[-1]) if args else node
        argv.append(validate_type(st, last, final, False, t))
    return invoke(st, call_node, fn, name, argv)


#: Errors a function call passes up as they are (others become ``error calling ...``).
UNWRAPPED = (BreakLoop, ContinueLoop, RecursionError, MemoryError, *PASS_THROUGH)


def invoke(st: State, call_node: n.Node, fn: Callable[..., Any], name: str, argv: Iterable[Any]) -> Any:
    """Call ``fn`` with checked arguments under the render's budget; its failure is Go's
    ``error calling NAME: ...`` at ``call_node``."""
    budget = st.budget
    # The budget's checks written out: they run on every call (reading the clock or calling a
    # method here shows in every render's profile).
    if budget.expired:
        raise budget.exceeded("timeout_s")
    try:
        result = fn(*argv)
        cls = result.__class__
        if (cls is str or cls is list) and len(result) > budget.max_items:
            budget.check_result(result)
        return result
    except UNWRAPPED:
        raise
    except Exception as e:  # a FuncError, or a panic Go's safeCall turns into the call's error
        failure = f"error calling {name}: {e}"
    # Raised outside the handler so the error does not keep the one it wraps (and that one the
    # next...): nested includes would hold every level's message, quadratic memory.
    raise st.error(call_node, failure)


def arg_at(st: State, arg: ArgEval) -> n.Node:
    """The node Go's executor last pointed at after evaluating ``arg`` (see :func:`last_touched`)."""
    node: n.Node = arg.node  # type: ignore[attr-defined]
    if st.at_node is not None and ends_in_and_or(node):
        return st.at_node
    return last_touched(node)


def last_touched(node: n.Node) -> n.Node:
    """The node Go's executor last pointed at after evaluating ``node`` (its ``s.at``).

    Go reports some errors (range over a bad value, a field of a parenthesized value)
    at that node rather than at the construct itself; this mirrors that choice statically.
    """
    if isinstance(node, n.PipeNode):
        return last_touched(node.cmds[-1]) if node.cmds else node
    if isinstance(node, n.CommandNode):
        first = node.args[0]
        if len(node.args) > 1 and isinstance(first, (n.IdentifierNode, n.FieldNode, n.VariableNode, n.ChainNode)):
            return last_touched(node.args[-1])
        return last_touched(first)
    if isinstance(node, n.ChainNode):
        return last_touched(node.node)
    return node


def ends_in_and_or(node: n.Node) -> bool:
    """Whether the last word evaluated for ``node`` depends on where ``and``/``or`` stopped."""
    while isinstance(node, n.PipeNode) and node.cmds:
        first = node.cmds[-1].args[0]
        if isinstance(first, n.IdentifierNode) and first.ident in ("and", "or") and len(node.cmds[-1].args) > 1:
            return True
        if len(node.cmds[-1].args) == 1 and isinstance(first, n.PipeNode):
            node = first
            continue
        last = node.cmds[-1].args[-1]
        if isinstance(last, n.PipeNode) and len(node.cmds[-1].args) > 1:
            node = last
            continue
        return False
    return False


class BoxedIndex:
    """A ``slice`` index read from a map: Go passes it still boxed, so it is refused."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def _call_slice(
    st: State, node: n.Node, call_node: n.Node, plan: Plan, name: str,
    args: list[ArgEval], final: Any, dot: Any, dboxed: bool,
) -> Any:
    """``slice``: Go does not unbox its indexes (``cannot index slice/array with type interface {}``)."""
    fn = plan[0]
    item = args[0](st, dot, dboxed, "reflect.Value")
    indexes: list[Any] = []
    for arg in args[1:]:
        value, boxed = arg(st, dot, dboxed, RAW_ARG)
        indexes.append(BoxedIndex(value) if boxed else value)
    if final is not MISSING:
        indexes.append(final)
    try:
        return fn(item, *indexes)
    except gotypes.FuncError as e:
        raise st.error(call_node, f"error calling {name}: {e}") from e


def _constant_arg(value: Any, original: ArgEval) -> ArgEval:
    """An argument evaluator returning an already computed value."""

    def arg(st: State, dot: Any, dboxed: bool, typ: Optional[str]) -> Any:
        return value

    arg.node = getattr(original, "node", None)  # type: ignore[attr-defined]
    return arg


# ---------------------------------------------------------------------------
# Range


def range_items(st: State, node: n.Node, value: Any, num_decl: int) -> Optional[Iterable[tuple[Any, Any, bool]]]:
    """(index, element, element boxed) triples for ``range``; None runs ``else``.

    Lists and dicts (keys sorted) give boxed elements; an int n gives 0..n-1 (generated as the
    loop goes: ``range 100000000`` must meet the render's time limit, not fill memory); nil
    gives none.
    """
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return [(i, v, True) for i, v in enumerate(value)] or None
    if isinstance(value, dict):
        return [(k, value[k], True) for k in sorted(value)] or None
    if isinstance(value, bytes):
        return [(i, v, False) for i, v in enumerate(value)] or None
    if isinstance(value, int) and not isinstance(value, bool):
        if num_decl > 1:
            raise st.error(node, f"can't use {gofmt.format_value(value)} to iterate over more than one variable")
        return ((None, i, False) for i in range(value)) if value > 0 else None
    raise st.error(node, f"range can't iterate over {gofmt.format_pointee(value)}")
