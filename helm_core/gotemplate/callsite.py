"""Callers made for one call site of a template function (Go's ``evalCall``, specialised).

What :func:`runtime.call_function` decides on every call — the argument count, each word's
parameter type, where a piped value goes — is fixed for a site once its function is known:
the words and whether a value is piped in are fixed when the site is compiled, the signature
by the function's plan. A caller is generated per site *shape* (the number of words, whether a
value is piped in, and what kind of word each is) as Python source, compiled once per shape
and bound to the site's own function, words and types. Words of the commonest kinds are read
in the caller itself: a literal its parameter takes as it is (a string, a bool, an integer
for an ``int``); and for ``interface {}`` parameters ``.``, a variable, a parenthesized
pipeline, and a chain of map keys (``.Values.a.b``) whose every step is a map that has the
key. Anything else (methods, missing keys, other types) goes to the word's own evaluator,
which gives Go's values and errors; reading map keys has no effects, so starting over there
is safe.

``and`` and ``or`` get callers of their own; the other special builtins (``len``, ``slice``,
``call``) and wrong argument counts are left to :func:`runtime.call_function`.

Compiling a shape costs ~0.3 ms, what a few hundred calls save (~1 us each against the
general path), and most sites of a chart run once or twice per render. So, where a disk memo
keeps compiled shapes (short CLI processes), a site whose shape is neither compiled in this
process nor in the memo's library first calls through the general path (:func:`general_call`)
and asks for its shape only at its :data:`WARM_UP_CALLS`-th call; the library then keeps the
shapes that were needed, and a later run binds them at once. Where the memo defers its writes
(the CLI's: a first run's shapes took 10-20 ms of it), the shape is compiled for the library by
the memo's deferred job, after the output, and the site stays on the general path up to
:data:`PAYING_CALLS` calls, where compiling it now pays for itself. Without a memo (a
long-running process) shapes compile at once.

Shapes of at most :data:`PREMADE_MAX_WORDS` words (every kind of word, piped or not) are made
ahead: ``callsite_shapes.py``, generated from this module by ``scripts/gen_callsite_shapes.py``,
holds their makers and is loaded from its bytecode (~2 ms for all of them, what compiling 4
shapes costs), so a first run binds them at once too. Those a process uses join the memo's
library, so a later run reads them from there without loading the module.
"""
from __future__ import annotations

import builtins
import functools
import marshal
import sys
import threading
import types
from collections.abc import Callable

from helm_core.gotemplate import nodes as n
from helm_core.gotemplate import runtime as rt
from helm_core.support import cachekeys, memo

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Optional, TypeAlias

#: A call site's caller: (state, dot, dot boxed, piped-in value) -> result.
SiteCall: TypeAlias = "Callable[[rt.State, Any, bool, Any], Any]"
#: How a warming site hands its compiled caller to the site (see the module's doc).
Rebind: TypeAlias = "Callable[[SiteCall], None]"

#: Sites with more words use one general caller (shapes stay few).
MAX_GENERATED_WORDS = 16
#: Longest map-key chain read in the caller.
MAX_INLINE_KEYS = 4
#: Compiled makers kept: charts use a few dozen shapes; generated templates (tpl) could make
#: endless ones, and a long-running process must not keep them all.
MAX_SHAPES = 1024
#: The memo kind of compiled makers (one marshalled dict of code objects by shape).
CODE_MEMO = "callsite-code"
#: Shapes kept in the memo's library; past it, it starts again (charts use a few dozen each).
MAX_STORED_SHAPES = 4096
#: Calls of a site through the general path before its shape is compiled, when neither this
#: process nor the memo has it (see the module's doc).
WARM_UP_CALLS = 4
#: Calls of a warming site after which its shape is compiled in this process even where the
#: memo compiles it later (see the module's doc): a compile is ~0.3-1 ms, a call through the
#: general path ~1 us more than a compiled one.
PAYING_CALLS = 512
#: Shapes with at most this many words are made ahead (``callsite_shapes.py``); every chart
#: has many sites of one or two words, and the module's load time grows with the shapes it holds
#: (nine kinds of word: 182 shapes up to two words, 1640 up to three).
PREMADE_MAX_WORDS = 2

_ANY = rt.ANY_TYPES


def site_call(plan: rt.Plan, name: str, args: list[rt.ArgEval], piped: bool, node: n.Node,
              call_node: n.Node, rebind: Optional[Rebind] = None) -> Optional[SiteCall]:
    """The caller for a site calling ``plan``'s function with ``args`` (and a piped value when
    ``piped``), or None where :func:`runtime.call_function` must decide (it words the errors).

    With ``rebind``, the caller may be a warming one (see the module's doc) that later passes
    the site's compiled caller to ``rebind``."""
    fn, _, _, special = plan
    if special == "and" or special == "or":
        return _and_or(special == "or", plan, args, piped)
    if special is not None:
        return None
    typed = site_types(plan, len(args), piped)
    if typed is None:
        return None
    types, final_type = typed
    # (Each closure is made by a function of its own: variables a closure reads are cells,
    # made on every call of the function that holds them; this runs once per site.)
    checked_final = final_checker(final_type, args[-1] if args else None, node) if piped else None
    if len(args) > MAX_GENERATED_WORDS:
        return _many_words(fn, name, call_node, tuple(zip(args, types, strict=True)), checked_final)
    kinds: list[str] = []
    bound: list[Any] = []
    for arg, typ in zip(args, types, strict=True):
        kind, extra = word_kind(arg, typ)
        kinds.append(kind)
        bound += (arg, typ, *extra)
    shape = (tuple(kinds), piped)
    maker = _maker(shape, compile_new=rebind is None)
    if maker is not None:
        return maker(fn, name, call_node, checked_final, rt.MISSING, *bound)
    assert rebind is not None
    compiled = functools.partial(_compiled_caller, shape, fn, name, call_node, checked_final, bound)
    return _warming(general_call(node, call_node, plan, name, args), compiled, rebind, shape)


def site_types(plan: rt.Plan, num_args: int, piped: bool) -> Optional[tuple[tuple[str, ...], str]]:
    """The parameter types of a site's ``num_args`` words and of its piped value; None where
    the count is wrong (:func:`runtime.call_function` words that error)."""
    _, params, variadic, _ = plan
    num_in = num_args + piped
    if variadic:
        num_fixed = len(params) - 1
        if num_in < num_fixed:
            return None
        types = tuple(params[i] if i < num_fixed else params[-1] for i in range(num_args))
        return types, params[num_in - 1] if num_in - 1 < num_fixed else params[-1]
    if num_in != len(params):
        return None
    return params[:num_args], params[-1] if params else ""


def final_checker(final_type: str, last_arg: Optional[rt.ArgEval], node: n.Node) -> Callable[[rt.State, Any], Any]:
    """Checks the piped value against ``final_type`` (Go's validateType); its errors point
    where Go's executor stood after the last word (or at the function's name)."""
    final_any = final_type in _ANY
    validate, arg_at, assignable = rt.validate_type, rt.arg_at, rt.assignable

    def checked_final(st: rt.State, final: Any) -> Any:
        if final is not None and (final_any or assignable(final, final_type)):
            return final  # where the value came from is needed only for an error
        return validate(st, arg_at(st, last_arg) if last_arg is not None else node, final, False, final_type)

    if final_type != "string":
        return checked_final

    def checked_string(st: rt.State, final: Any) -> Any:
        # The commonest piped type (trunc, trimSuffix, quote, indent...): told by its class, no call.
        return final if final.__class__ is str else checked_final(st, final)

    return checked_string


def _many_words(fn: Callable[..., Any], name: str, call_node: n.Node, pairs: tuple[tuple[rt.ArgEval, str], ...],
                checked_final: Optional[Callable[[rt.State, Any], Any]]) -> SiteCall:
    """The one caller of sites with more than :data:`MAX_GENERATED_WORDS` words."""
    def call(st: rt.State, dot: Any, db: bool, final: Any = rt.MISSING) -> Any:
        argv = [a(st, dot, db, t) for a, t in pairs]
        if checked_final is not None:
            argv.append(checked_final(st, final))
        return rt.invoke(st, call_node, fn, name, argv)

    return call


def _compiled_caller(shape: Shape, fn: Callable[..., Any], name: str, call_node: n.Node,
                     checked_final: Optional[Callable[[rt.State, Any], Any]], bound: list[Any]) -> SiteCall:
    """A warming site's compiled caller (its shape compiled now if no one has it)."""
    maker = _maker(shape, compile_new=True)
    assert maker is not None
    return maker(fn, name, call_node, checked_final, rt.MISSING, *bound)


def general_call(node: n.Node, call_node: n.Node, plan: rt.Plan, name: str, args: list[rt.ArgEval]) -> SiteCall:
    """A site's caller through :func:`runtime.call_function` (special builtins, wrong counts);
    ``node`` is the function's name, where count errors point."""
    call = rt.call_function

    def general(st: rt.State, dot: Any, db: bool, final: Any = rt.MISSING) -> Any:
        return call(st, node, call_node, plan, name, args, final, dot, db)

    return general


def _warming(general: SiteCall, compiled: Callable[[], SiteCall], rebind: Rebind, shape: Shape) -> SiteCall:
    """``general`` for the site's first calls; at the :data:`WARM_UP_CALLS`-th, the site is
    given ``compiled()`` for the calls after it, unless the memo compiles ``shape`` later: then
    at the :data:`PAYING_CALLS`-th."""
    left = WARM_UP_CALLS
    compiled_now = WARM_UP_CALLS - PAYING_CALLS

    def warming(st: rt.State, dot: Any, db: bool, final: Any = rt.MISSING) -> Any:
        nonlocal left
        left -= 1
        # (<=, not ==: two threads may both pass a count)
        if left <= 0 and (left <= compiled_now or not _LIBRARY.compile_later(shape)):
            rebind(compiled())
        return general(st, dot, db, final)

    return warming


def _and_or(want: bool, plan: rt.Plan, args: list[rt.ArgEval], piped: bool) -> Optional[SiteCall]:
    """``and`` (``want`` false) / ``or``: the first word whose truth is ``want``, else the last
    (the piped value last of all); words after it are not evaluated. As call_function does it."""
    if len(args) + piped < len(plan[1]) - 1:
        return None
    words = tuple((arg, rt.last_touched(arg.node)) for arg in args)  # type: ignore[attr-defined]
    is_true = rt.is_true

    def call(st: rt.State, dot: Any, db: bool, final: Any = rt.MISSING) -> Any:
        value: Any = None
        for arg, at in words:
            st.at_node = at  # later errors point where evaluation stopped, as Go's do
            value = arg(st, dot, db, "reflect.Value")
            if is_true(value) == want:
                return value
        return final if piped else value

    return call


#: Every kind :func:`_word_kind` gives (the premade shapes are made of these).
WORD_KINDS = ("c", "d", "v", "p", "g", *(f"k{i}" for i in range(1, MAX_INLINE_KEYS + 1)))


def word_kind(arg: rt.ArgEval, typ: str) -> tuple[str, tuple[Any, ...]]:
    """How the caller reads a word: ``c`` a constant (what :func:`runtime.literal_arg` gives),
    ``d`` dot, ``kN`` N map keys from dot, ``v`` a variable, ``p`` a parenthesized pipeline,
    ``g`` the word's evaluator; and the values that reading needs."""
    node = getattr(arg, "node", None)
    if isinstance(node, n.StringNode) and (typ == "string" or typ in _ANY):
        return "c", (node.text,)
    if isinstance(node, n.BoolNode) and (typ == "bool" or typ in _ANY):
        return "c", (node.true,)
    if isinstance(node, n.NumberNode) and typ == "int" and node.is_int:
        return "c", (node.int64,)
    if typ not in _ANY:
        return "g", ()
    # For an interface{} parameter Go's validateType passes any value on, nil included; only
    # reaching the value can fail.
    if isinstance(node, n.DotNode):
        return "d", ()
    if isinstance(node, n.FieldNode) and len(node.ident) <= MAX_INLINE_KEYS:
        return f"k{len(node.ident)}", tuple(node.ident)
    if isinstance(node, n.VariableNode) and len(node.ident) == 1:
        return "v", (node.ident[0],)
    pipe = getattr(arg, "compiled_pipe", None)
    if isinstance(node, n.PipeNode) and not node.decl and pipe is not None:
        return "p", (pipe,)
    return "g", ()


def _read_word(i: int, kind: str) -> tuple[list[str], list[str]]:
    """(maker parameters, caller lines) evaluating word ``i`` into ``v{i}``."""
    general = f"v{i} = a{i}(st, dot, db, t{i})"
    if kind == "c":
        return [f"c{i}"], [f"v{i} = c{i}"]
    if kind == "d":
        return [], [f"v{i} = dot"]
    if kind == "v":  # the variable, or its evaluator's "undefined variable" error
        return [f"n{i}"], ["for e in reversed(st.vars):", f"    if e[0] == n{i}:",
                            f"        v{i} = e[1]", "        break", "else:", f"    {general}"]
    if kind == "p":
        return [f"p{i}"], [f"v{i} = p{i}(st, dot, db)"]
    if kind.startswith("k"):
        keys = [f"k{i}_{j}" for j in range(int(kind[1:]))]
        lines = [f"v{i} = MISSING", "r = dot"]
        indent = ""
        for key in keys:
            lines += [f"{indent}if r.__class__ is dict and {key} in r:", f"{indent}    r = r[{key}]"]
            indent += "    "
        lines += [f"{indent}v{i} = r", f"if v{i} is MISSING:", f"    {general}"]
        return keys, lines
    return [], [general]


Shape: TypeAlias = "tuple[tuple[str, ...], bool]"
#: Makers of this process by shape (see MAX_SHAPES); None: not in the memo's library.
_MAKERS: dict[Shape, Optional[Callable[..., SiteCall]]] = {}


def _maker(shape: Shape, *, compile_new: bool) -> Optional[Callable[..., SiteCall]]:
    """The maker of callers for sites of ``shape`` (see the module's doc): this process's, the
    memo library's, a premade one, or (``compile_new``, or no memo) compiled now; else None."""
    maker: Optional[Callable[..., SiteCall]] = _MAKERS.get(shape, _UNKNOWN)
    if maker is _UNKNOWN or (maker is None and compile_new):
        code = _maker_code(shape, compile_new)
        maker = None if code is None else types.FunctionType(code, _MAKER_GLOBALS)
        if len(_MAKERS) >= MAX_SHAPES:  # generated templates (tpl) could make endless shapes
            _MAKERS.clear()
        _MAKERS[shape] = maker
    return maker


_UNKNOWN: Any = object()
#: What generated makers read besides their parameters.
_MAKER_GLOBALS: dict[str, Any] = {"UNWRAPPED": rt.UNWRAPPED, "__builtins__": builtins}


def _maker_code(shape: Shape, compile_new: bool = True) -> Optional[types.CodeType]:
    """The code of ``shape``'s maker: from the disk memo's library of shapes when a process
    before used it (a chart's few dozen shapes took a visible part of a warm ``--output-dir``
    run to compile); else premade; else compiled now if ``compile_new`` or there is no memo;
    else None."""
    disk = memo.active()
    if disk is not None:
        with _LIBRARY.lock:
            code = _LIBRARY.codes(disk).get(shape)
        if code is not None:
            return code
    code = _premade(shape)
    if code is None and (compile_new or disk is None):
        code = _compiled_code(shape)
    if code is not None and disk is not None:
        with _LIBRARY.lock:
            _LIBRARY.add(disk, shape, code)
    return code


def _compiled_code(shape: Shape) -> types.CodeType:
    """The code of ``shape``'s maker, compiled now from its source."""
    namespace: dict[str, Any] = {}
    exec(compile(_maker_source(shape, "make"), _code_name(shape), "exec"), namespace)
    code: types.CodeType = namespace["make"].__code__
    return code


def _code_name(shape: Shape) -> str:
    """The file name of a compiled maker's code (what tracebacks show)."""
    kinds, piped = shape
    return "<template call site: " + ",".join(kinds) + (" | piped" if piped else "") + ">"


def _maker_source(shape: Shape, maker_name: str) -> str:
    """The source of function ``maker_name``, the maker of ``shape``'s callers."""
    kinds, piped = shape
    params = ["fn", "name", "call_node", "checked_final", "MISSING"]
    body: list[str] = []
    for i, kind in enumerate(kinds):
        extra, lines = _read_word(i, kind)
        params += [f"a{i}", f"t{i}", *extra]
        body += lines
    count = len(kinds)
    if piped:
        body.append(f"v{count} = checked_final(st, final)")
    argv = ", ".join(f"v{i}" for i in range(count + piped))
    # The budget's checks and the call as runtime.invoke does them, written out: one frame less.
    body += [
        "budget = st.budget",
        "if budget.expired:",
        "    raise budget.exceeded('timeout_s')",
        "try:",
        f"    result = fn({argv})",
        "    cls = result.__class__",
        "    if (cls is str or cls is list) and len(result) > budget.max_items:",
        "        budget.check_result(result)",
        "    return result",
        "except UNWRAPPED:",
        "    raise",
        "except Exception as e:",
        "    failure = f'error calling {name}: {e}'",
        "raise st.error(call_node, failure)",
    ]
    return (f"def {maker_name}({', '.join(params)}):\n"
            "    def call(st, dot, db, final=MISSING):\n"
            + "".join(f"        {line}\n" for line in body)
            + "    return call\n")


def _premade(shape: Shape) -> Optional[types.CodeType]:
    """The code of ``shape``'s premade maker, if it is one (see the module's doc)."""
    if len(shape[0]) > PREMADE_MAX_WORDS:
        return None
    # Imported by the first shape asked: a run whose shapes all come from the library skips it.
    from helm_core.gotemplate import callsite_shapes

    maker = callsite_shapes.MAKERS.get(shape)
    return None if maker is None else maker.__code__


def premade_shapes() -> list[Shape]:
    """Every shape made ahead: each sequence of at most :data:`PREMADE_MAX_WORDS` word kinds,
    piped or not."""
    sequences: list[tuple[str, ...]] = [()]
    shapes: list[Shape] = []
    for _ in range(PREMADE_MAX_WORDS + 1):
        shapes += [(kinds, piped) for kinds in sequences for piped in (False, True)]
        sequences = [(*kinds, kind) for kinds in sequences for kind in WORD_KINDS]
    return shapes


def premade_module_source() -> str:
    """The text of ``callsite_shapes.py`` (written by ``scripts/gen_callsite_shapes.py``)."""
    names = {shape: "make_" + ("_".join(shape[0]) or "none") + ("_piped" if shape[1] else "")
             for shape in premade_shapes()}
    parts = [
        "# Generated by scripts/gen_callsite_shapes.py from helm_core/gotemplate/callsite.py: do not edit.\n"
        "# mypy: ignore-errors\n"
        '"""Makers of call-site callers for every shape of at most '
        f'{PREMADE_MAX_WORDS} words (see callsite\'s module doc)."""\n'
        "from helm_core.gotemplate.runtime import UNWRAPPED\n",
        *(_maker_source(shape, name) for shape, name in names.items()),
        "#: Makers by shape.\nMAKERS = {\n" + "".join(f"    {shape!r}: {name},\n" for shape, name in names.items())
        + "}\n",
    ]
    return "\n\n".join(parts)


class _Library:
    """The compiled makers of every shape met, kept in the disk memo as one entry.

    One entry, not one per shape: a first run of a large chart meets a hundred shapes, and
    creating a file costs ~1 ms on some disks (more than compiling the shape). Loaded whole at
    the first shape a process needs; written again by :func:`save_compiled` when the process
    added new ones. Two processes saving at once may lose each other's new shapes, which are
    then made again: the memo never holds a wrong one (the entry's key covers this module's
    code, which makes the makers)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self._root = ""
        self._codes: dict[Shape, types.CodeType] = {}
        self._new = False
        #: Shapes the memo's deferred job compiles (:meth:`compile_later`).
        self._later: set[Shape] = set()

    def codes(self, disk: memo.DiskMemo) -> dict[Shape, types.CodeType]:
        if disk.root_text != self._root:
            self._root, self._codes, self._new = disk.root_text, {}, False
            blob = disk.get(CODE_MEMO, _library_key())
            if blob is not None:
                try:
                    loaded = marshal.loads(blob)
                except (EOFError, ValueError, TypeError):  # a damaged entry is a miss
                    loaded = None
                if isinstance(loaded, dict):
                    self._codes = {k: c for k, c in loaded.items() if isinstance(c, types.CodeType)}
        return self._codes

    def add(self, disk: memo.DiskMemo, shape: Shape, code: types.CodeType) -> None:
        codes = self.codes(disk)
        if len(codes) >= MAX_STORED_SHAPES:  # generated templates: start the library again
            codes.clear()
        codes[shape] = code
        self._new = True

    def save(self, disk: memo.DiskMemo) -> None:
        if disk.root_text != self._root or not self._new:
            return
        self._new = False
        disk.put(CODE_MEMO, _library_key(), marshal.dumps(self._codes))

    def compile_later(self, shape: Shape) -> bool:
        """Whether ``shape`` is compiled for the library by the memo's deferred job (a memo that
        defers its writes), not by this caller."""
        disk = memo.active()
        if disk is None or not disk.defers_writes:
            return False
        with self.lock:
            if not self._later:
                disk.defer(functools.partial(self._compile_wanted, disk))
            self._later.add(shape)
        return True

    def _compile_wanted(self, disk: memo.DiskMemo) -> None:
        """The deferred job: the shapes asked for later that the library lacks, compiled and saved."""
        with self.lock:
            wanted, self._later = self._later, set()
            codes = self.codes(disk)
            for shape in wanted - codes.keys():
                self.add(disk, shape, _compiled_code(shape))
            self.save(disk)


_LIBRARY = _Library()


@functools.cache
def _library_key() -> str:
    # Bytecode is the interpreter's own, and this module's code makes the makers: the key
    # covers both.
    return cachekeys.hexdigest(f"{sys.version}\0call-site makers\0{memo.code_digest(__file__)}".encode())


def save_compiled() -> None:
    """Write the shapes compiled since the library was loaded (a render calls it when done)."""
    disk = memo.active()
    if disk is not None:
        with _LIBRARY.lock:
            _LIBRARY.save(disk)
