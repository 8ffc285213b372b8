"""Jinja2, the opt-in template engine (docs/architecture.md, "Template engines"), in a sandbox
with size and time limits.

A chart opts in per file (``templates/cm.yaml.j2`` renders to the document source ``cm.yaml``)
or from its Lua ``pre-render`` handler (``engine = "jinja2"``); everything else is Go templates.

What a Jinja2 template sees mirrors Go templates: ``Values``, ``Release``, ``Chart``,
``Capabilities``, ``Files``, ``Template``, ``Subcharts`` and ``root`` (Go's ``.``/``$``, the map to
pass to ``include``). Helm's functions keep Helm's names and semantics; as filters the piped
value comes first (``x | indent(4)`` is Go's ``indent 4 x``): ``toYaml``, ``toJson``,
``fromYaml``, ``fromJson``, ``b64enc``, ``b64dec``, ``quote``, ``squote``, ``indent``,
``nindent``, ``trunc``, ``trimSuffix``, ``sha256sum``, ``required``, ``tpl``; globals
``include(name, ctx)`` (the chart's Go ``define``s), ``tpl(text, ctx)``, ``required(msg, v)``,
``fail(msg)``, ``lookup(apiVersion, kind, namespace, name)``. Go's text for ``nil`` and
booleans is kept: ``None`` prints as nothing, ``True`` as ``true``.

Rules of the sandbox (chart templates are untrusted):

* ``ImmutableSandboxedEnvironment``: no ``_``-prefixed or internal attributes (an attempt is an
  error, never a silent blank), no mutation of dicts/lists (``Values`` stays as it was), no
  ``str.format``/``format_map``, no loader (``{% include %}``/``{% import %}`` are refused);
  objects Go templates see as structs (``Chart``, ``Files``, ``Capabilities``...) show only
  their Go members, as in Go;
* limits per rendered template, each a named constant below: output size, size of any value a
  filter, operator or ``~`` produces, integer size, loop iterations, call depth, wall time;
* autoescape off, ``trim_blocks``/``lstrip_blocks`` on, trailing newline kept;
  ``StrictUndefined`` in strict or lint mode.

Errors read ``jinja2 error at (<chart>/templates/<file>:<line>): <message>``.
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from typing import Any

import jinja2
import jinja2.exceptions
from jinja2 import nodes, sandbox
from jinja2.visitor import NodeTransformer

from helm_core.engine import engines, helm_funcs
from helm_core.errors import SourcePos, TemplateError
from helm_core.golib import gotypes
from helm_core.gotemplate import gofmt
from helm_core.gotemplate.funcs import digests, encoding, gohelpers, strings
from helm_core.support.limits import RenderLimitExceeded

#: The engine name a pre-render handler sets on a template.
ENGINE = engines.JINJA2
SUFFIX = engines.JINJA2_SUFFIX
is_jinja_file = engines.is_jinja_file
document_name = engines.document_name
#: Characters one template may output (literal text in loops counted per iteration).
MAX_OUTPUT_CHARS = 16 * 1024 * 1024
#: Size (characters, items) of any value a filter, function, operator or ``~`` may produce.
MAX_VALUE_SIZE = 8 * 1024 * 1024
#: How deep lists and maps a template builds may nest (serialising them recurses).
MAX_VALUE_DEPTH = 100
#: Bits of an integer an operator may produce (``10 ** 10 ** 10`` is refused).
MAX_INT_BITS = 4096
#: Loop iterations of one template, all loops together.
MAX_LOOP_ITERATIONS = 1_000_000
#: Width and count arguments of padding/splitting filters and ``%`` format specs.
MAX_WIDTH = 10_000
#: Nested calls (macros, recursive loops, functions) of one template.
MAX_CALL_DEPTH = 200
#: Wall time one template may take to render, in seconds.
TIME_BUDGET_SECONDS = 5.0

_WIDTH_FILTERS = frozenset({"center", "indent", "nindent", "wordwrap", "batch", "slice", "truncate", "trunc",
                            "tojson"})
_REMOVED_GLOBALS = ("lipsum",)
_REFUSED_STR_ATTRIBUTES = frozenset({"format", "format_map"})


class LimitError(Exception):
    """A template exceeded one of the sandbox limits (message names the limit)."""


class _Failure(Exception):
    """``required``/``fail`` (their message is shown as is)."""


def value_size(value: Any, cap: int = MAX_VALUE_SIZE) -> int:
    """How big ``value`` prints, roughly: characters of strings, one per item; stops past ``cap``.

    Shared references count every time they are reached (as serialising them would), and the
    walk stops as soon as the total passes ``cap``, so it is bounded whatever the shape.
    """
    return _measure(value, cap)[0]


def _measure(value: Any, cap: int = MAX_VALUE_SIZE) -> tuple[int, int]:
    """(size as :func:`value_size` counts it, nesting depth); both stop past their limits."""
    total = 0
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack and total <= cap and deepest <= MAX_VALUE_DEPTH:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if isinstance(item, (str, bytes, bytearray)):
            total += len(item) + 1
        elif isinstance(item, bool) or item is None:
            total += 1
        elif isinstance(item, int):
            total += item.bit_length() // 3 + 1
        elif isinstance(item, dict):
            total += 1
            for k, v in item.items():
                stack.append((k, depth + 1))
                stack.append((v, depth + 1))
        elif isinstance(item, (list, tuple, set, frozenset)):
            total += 1
            stack.extend((v, depth + 1) for v in item)
        else:
            total += 1
    return total, deepest


def _check_size(what: str, *values: Any) -> None:
    """Refuse ``values`` that together are larger than :data:`MAX_VALUE_SIZE` or nest too deep."""
    total = 0
    for value in values:
        size, depth = _measure(value)
        if depth > MAX_VALUE_DEPTH:
            raise LimitError(f"{what}: value nested deeper than {MAX_VALUE_DEPTH}")
        total += size
        if total > MAX_VALUE_SIZE:
            raise LimitError(f"{what}: value larger than {MAX_VALUE_SIZE} characters")


class _Budget:
    """Counters of one template's render (reset before each)."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.deadline = time.monotonic() + TIME_BUDGET_SECONDS
        self.iterations = 0
        self.output = 0
        self.depth = 0

    def tick(self) -> None:
        if time.monotonic() > self.deadline:
            raise LimitError(f"time budget of {TIME_BUDGET_SECONDS:g}s exceeded")

    def emit(self, size: int) -> None:
        self.output += size
        if self.output > MAX_OUTPUT_CHARS:
            raise LimitError(f"output larger than {MAX_OUTPUT_CHARS} characters")


class _Guards(NodeTransformer):
    """Routes every ``for`` iterable and ``~`` through the environment's guards."""

    def visit_For(self, node: nodes.For) -> nodes.Node:  # noqa: N802 - visitor name
        loop = self.generic_visit(node)
        assert isinstance(loop, nodes.For)
        literal = sum(len(d.data) for item in loop.body for d in item.find_all(nodes.TemplateData))
        loop.iter = nodes.Call(nodes.EnvironmentAttribute("guard_iter"),
                               [loop.iter, nodes.Const(literal)], [], None, None, lineno=loop.lineno)
        return loop

    def visit_Concat(self, node: nodes.Concat) -> nodes.Node:  # noqa: N802 - visitor name
        concat = self.generic_visit(node)
        assert isinstance(concat, nodes.Concat)
        return nodes.Call(nodes.EnvironmentAttribute("guard_concat"), list(concat.nodes), [], None, None,
                          lineno=concat.lineno)


class _Sandbox(sandbox.ImmutableSandboxedEnvironment):
    """Jinja2's immutable sandbox plus our limits; one per compiled template set."""

    intercepted_binops = frozenset({"+", "*", "**", "%"})

    def __init__(self, *, strict: bool) -> None:
        super().__init__(
            autoescape=False, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
            undefined=jinja2.StrictUndefined if strict else jinja2.Undefined,
            finalize=self._finalize, loader=None, cache_size=0,
        )
        self.budget = _Budget()
        for name in _REMOVED_GLOBALS:
            self.globals.pop(name, None)

    # -- sandbox rules ---------------------------------------------------------------
    def is_safe_attribute(self, obj: Any, attr: str, value: Any) -> bool:
        if isinstance(obj, str) and attr in _REFUSED_STR_ATTRIBUTES:
            return False
        if isinstance(obj, gotypes.GoObject):  # .Chart, .Files, .Capabilities...: Go's members only
            return attr in obj.go_members
        return super().is_safe_attribute(obj, attr, value)

    def wrap_str_format(self, value: Any) -> None:
        """``str.format``/``format_map`` are refused: their width specs build strings of any size."""
        if getattr(value, "__name__", None) in _REFUSED_STR_ATTRIBUTES and isinstance(
                getattr(value, "__self__", None), str):
            raise jinja2.exceptions.SecurityError(
                f"str.{value.__name__} is not allowed; use the '%' operator or |format")
        return None

    def unsafe_undefined(self, obj: Any, attribute: str) -> jinja2.Undefined:
        raise jinja2.exceptions.SecurityError(
            f"access to attribute {attribute!r} of {type(obj).__name__!r} object is unsafe")

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
        budget = __self.budget
        budget.tick()
        if budget.depth >= MAX_CALL_DEPTH:
            raise LimitError(f"calls nested deeper than {MAX_CALL_DEPTH}")
        budget.depth += 1
        try:
            return super().call(__context, __obj, *args, **kwargs)
        finally:
            budget.depth -= 1

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        self.budget.tick()
        if operator == "**":
            _check_power(left, right)
        elif operator == "*":
            _check_product(left, right)
        elif operator == "%" and isinstance(left, str):
            _check_format_spec(left)
            _check_size("'%'", left, right)
        elif operator == "+":
            _check_size("'+'", left, right)
        return super().call_binop(context, operator, left, right)

    # -- guards the compiled code calls ------------------------------------------------
    def guard_iter(self, iterable: Any, literal_chars: int) -> Iterator[Any]:
        budget = self.budget
        for item in iterable:
            budget.iterations += 1
            if budget.iterations > MAX_LOOP_ITERATIONS:
                raise LimitError(f"more than {MAX_LOOP_ITERATIONS} loop iterations")
            budget.tick()
            budget.emit(literal_chars)
            yield item

    def guard_concat(self, *parts: Any) -> str:
        _check_size("'~'", *parts)
        return "".join(_go_text(p) for p in parts)

    def _finalize(self, value: Any) -> Any:
        self.budget.tick()
        if isinstance(value, str):
            self.budget.emit(len(value))
            return value
        if isinstance(value, jinja2.Undefined):
            return value
        _check_size("output", value)
        self.budget.emit(value_size(value))
        return _go_text(value)

    def _parse(self, source: str, name: str | None, filename: str | None) -> nodes.Template:
        tree = super()._parse(source, name, filename)
        guarded: nodes.Template = _Guards().visit(tree)
        return guarded


def _go_text(value: Any) -> str:
    """How ``{{ v }}`` prints: as Go for nil (blank), booleans and floats (``2.0`` is ``2``,
    YAML numbers being float64); otherwise ``str``."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return gofmt.format_value(value)
    return str(value)


def _check_power(left: Any, right: Any) -> None:
    if isinstance(left, int) and isinstance(right, int) and abs(left) > 1 and right > 0:
        if right * math.log2(abs(left)) > MAX_INT_BITS:
            raise LimitError(f"'**': result larger than {MAX_INT_BITS} bits")


def _check_product(left: Any, right: Any) -> None:
    for seq, count in ((left, right), (right, left)):
        if isinstance(seq, (str, list, tuple)) and isinstance(count, int):
            size = len(seq) if isinstance(seq, str) else value_size(seq)
            if size * max(count, 0) > MAX_VALUE_SIZE:
                raise LimitError(f"'*': value larger than {MAX_VALUE_SIZE} characters")
            return
    if isinstance(left, int) and isinstance(right, int) and left.bit_length() + right.bit_length() > MAX_INT_BITS:
        raise LimitError(f"'*': result larger than {MAX_INT_BITS} bits")


def _check_format_spec(spec: str) -> None:
    """``%`` formatting: no ``*`` widths, no width or precision above :data:`MAX_WIDTH`."""
    i = spec.find("%")
    while i >= 0:
        j = i + 1
        if j < len(spec) and spec[j] == "(":
            j = spec.find(")", j) + 1 or len(spec)
        digits = ""
        while j < len(spec) and spec[j] in "#0- +*.0123456789":
            if spec[j] == "*":
                raise LimitError("'%': '*' widths are not allowed")
            digits = digits + spec[j] if spec[j].isdigit() else digits + " "
            j += 1
        if any(int(n) > MAX_WIDTH for n in digits.split()):
            raise LimitError(f"'%': width or precision above {MAX_WIDTH}")
        i = spec.find("%", j + 1)


# ---------------------------------------------------------------------------
# Filters and globals


def _guard(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """Refuse oversized arguments before ``fn`` runs and oversized results after.

    Filters that grow their input more than linearly get an estimate first (:data:`_GROWTH`).
    """
    skip = 1 if hasattr(fn, "jinja_pass_arg") else 0  # the context/environment Jinja passes first
    estimate = _GROWTH.get(name)

    def guarded(*args: Any, **kwargs: Any) -> Any:
        values = args[skip:]
        if values and name == "join" and not isinstance(values[0], (str, list, tuple, dict)):
            values = (list(values[0]), *values[1:])  # a generator (map, select...) is measured
            args = (*args[:skip], *values)
        _check_size(name, *values, *kwargs.values())
        if name in _WIDTH_FILTERS:
            for arg in (*values[1:], *kwargs.values()):
                if isinstance(arg, int) and not isinstance(arg, bool) and abs(arg) > MAX_WIDTH:
                    raise LimitError(f"{name}: argument {arg} above {MAX_WIDTH}")
        if name == "format" and values and isinstance(values[0], str):
            _check_format_spec(values[0])
        if estimate is not None and values and estimate(*values, **kwargs) > MAX_VALUE_SIZE:
            raise LimitError(f"{name}: value larger than {MAX_VALUE_SIZE} characters")
        result = fn(*args, **kwargs)
        if isinstance(result, (str, bytes, list, tuple, dict)) and len(result) > MAX_VALUE_SIZE:
            raise LimitError(f"{name}: value larger than {MAX_VALUE_SIZE} characters")
        return result

    guarded.__name__ = getattr(fn, "__name__", name)
    if hasattr(fn, "jinja_pass_arg"):
        setattr(guarded, "jinja_pass_arg", getattr(fn, "jinja_pass_arg"))
    return guarded


def _grow_replace(s: Any, old: Any = "", new: Any = "", count: Any = None, **_: Any) -> int:
    text, before, after = str(s), str(old), str(new)
    times = text.count(before) if count is None else min(text.count(before), max(_int(count), 0))
    return len(text) + times * max(len(after) - len(before), 0)


def _grow_lines(s: Any, width: Any = 4, *_: Any, **__: Any) -> int:
    """indent/nindent: every line gets ``width`` more characters."""
    text = str(s)
    return len(text) + (text.count("\n") + 2) * max(_int(width), 0)


def _grow_wordwrap(s: Any, width: Any = 79, break_long_words: Any = True, wrapstring: Any = None,
                   *_: Any, **kwargs: Any) -> int:
    text, wrap = str(s), str(kwargs.get("wrapstring", wrapstring) or "\n")
    columns = max(_int(kwargs.get("width", width)), 1)
    return len(text) + (len(text) // columns + 1) * len(wrap)


def _grow_join(items: Any, d: Any = "", *_: Any, **kwargs: Any) -> int:
    sep = str(kwargs.get("d", d))
    count = len(items) if isinstance(items, (str, list, tuple, dict)) else 0
    return value_size(items) + count * len(sep)


#: Size estimates (before running) of filters whose output can outgrow their input many times.
_GROWTH: dict[str, Callable[..., int]] = {
    "replace": _grow_replace, "indent": _grow_lines, "nindent": _grow_lines,
    "wordwrap": _grow_wordwrap, "join": _grow_join,
}


def _arg(value: Any) -> Any:
    """A Jinja value as Go functions take it: undefined is nil (and an error when strict)."""
    if isinstance(value, jinja2.StrictUndefined):
        str(value)  # raises UndefinedError with Jinja's message
    if isinstance(value, jinja2.Undefined):
        return None
    return value


def _text(value: Any) -> str:
    value = _arg(value)
    return value if isinstance(value, str) else gohelpers.strval(value)


def _int(value: Any) -> int:
    return int(_arg(value) or 0)


def _helm_static() -> dict[str, Callable[..., Any]]:
    """Go functions usable as filters with the piped value first."""
    out: dict[str, Callable[..., Any]] = {}
    for name, fn in helm_funcs.STATIC_FUNCS.items():
        if name.startswith("from"):
            out[name] = lambda v, _fn=fn: _fn(_text(v))
        elif name != "getHostByName":
            out[name] = lambda v, _fn=fn: _fn(_arg(v))
    out.update({
        "b64enc": lambda v: encoding.b64enc(_text(v)),
        "b64dec": lambda v: encoding.b64dec(_text(v)),
        "sha256sum": lambda v: digests.sha256sum(_text(v)),
        "quote": lambda *vs: strings.quote(*(_arg(v) for v in vs)),
        "squote": lambda *vs: strings.squote(*(_arg(v) for v in vs)),
        "indent": lambda v, n: strings.indent(_int(n), _text(v)),
        "nindent": lambda v, n: strings.nindent(_int(n), _text(v)),
        "trunc": lambda v, n: strings.trunc(_int(n), _text(v)),
        "trimSuffix": lambda v, suffix: strings.trim_suffix(_text(suffix), _text(v)),
    })
    return out


def _missing(value: Any) -> bool:
    return value is None or isinstance(value, jinja2.Undefined) or (isinstance(value, str) and value == "")


def _bound(state: helm_funcs.RenderState) -> dict[str, Callable[..., Any]]:
    """include, tpl, required, fail and lookup for one compiled set's render state."""
    go = helm_funcs.bound_funcs(state)

    def include(name: str, data: Any = None) -> str:
        try:
            out: str = go["include"](_text(name), _arg(data))
        except gotypes.FuncError as exc:  # the innermost failure of a chain of Go includes
            inner = str(exc).rsplit(_GO_INCLUDE_ERROR, 1)[-1]
            raise _Failure(f"include {_text(name)!r}: {_strip_warn(inner)}") from None
        return out.replace("<no value>", "")

    def tpl(text: Any, data: Any = None) -> str:
        try:
            out: str = go["tpl"](_text(text), _arg(data))
        except gotypes.FuncError as exc:
            raise _Failure(_strip_warn(str(exc))) from None
        return out

    def required(message: Any, value: Any = None) -> Any:
        if _missing(value):
            if state.lint_mode:
                return ""
            raise _Failure(_text(message))
        return value

    def fail(message: Any) -> str:
        if state.lint_mode:
            return ""
        raise _Failure(_text(message))

    def lookup(api_version: Any, kind: Any, namespace: Any, name: Any) -> dict[str, Any]:
        return state.lookup(_text(api_version), _text(kind), _text(namespace), _text(name))

    return {"include": include, "tpl": tpl, "required": required, "fail": fail, "lookup": lookup}


_GO_INCLUDE_ERROR = "error calling include: "


def _strip_warn(message: str) -> str:
    start, end = message.find(helm_funcs.WARN_START), message.rfind(helm_funcs.WARN_END)
    if start >= 0 and end > start:
        return message[start + len(helm_funcs.WARN_START):end]
    return message


class JinjaSet:
    """The Jinja2 side of one compiled template set: a sandbox and compiled templates.

    Not thread-safe: the Go renderer holds its compiled set's lock around a render.
    """

    def __init__(self, state: helm_funcs.RenderState, *, strict: bool) -> None:
        self.env = _Sandbox(strict=strict)
        bound = _bound(state)
        filters = dict(self.env.filters)
        filters.update(_helm_static())
        filters["required"] = lambda value, message: bound["required"](message, value)
        filters["tpl"] = lambda text, data=None: bound["tpl"](text, data)
        self.env.filters = {name: _guard(name, fn) for name, fn in filters.items()}
        self.env.globals.update({name: _guard(name, fn) for name, fn in bound.items()})
        for name in ("toYaml", "toJson", "fromYaml", "fromJson"):
            self.env.globals[name] = self.env.filters[name]
        self._templates: dict[str, jinja2.Template] = {}

    def render(self, source: str, text: str, data: dict[str, Any]) -> str:
        """Render ``text`` (the file ``source``) with the Go-template data map ``data``."""
        env = self.env
        try:
            template = self._templates.get(source)
            if template is None:
                code = env.compile(text, name=source, filename=source)
                template = env.template_class.from_code(env, code, env.make_globals(None))
                self._templates[source] = template
            env.budget.reset()
            variables = {k: data[k] for k in _CONTEXT_NAMES if k in data}
            variables["root"] = data
            chunks: list[str] = []
            for chunk in template.generate(variables):
                env.budget.emit(0)
                chunks.append(chunk)
            return "".join(chunks).replace("<no value>", "")
        except jinja2.TemplateSyntaxError as exc:
            raise _error(source, exc.lineno or 0, exc.message or str(exc)) from None
        except RenderLimitExceeded:  # the render's budget (Go templates it includes): as it is
            raise
        except (TemplateError, RecursionError, MemoryError, Exception) as exc:  # untrusted code boundary
            raise _error(source, _line_of(exc, source), _message(exc)) from None


_CONTEXT_NAMES = ("Values", "Release", "Chart", "Capabilities", "Files", "Template", "Subcharts")


def _message(exc: BaseException) -> str:
    if isinstance(exc, RecursionError):
        return "template nesting too deep"
    if isinstance(exc, MemoryError):
        return "out of memory"
    text = str(exc)
    if isinstance(exc, (jinja2.TemplateError, LimitError, _Failure, TemplateError)):
        return text
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _line_of(exc: BaseException, source: str) -> int:
    """The template line of the innermost traceback frame of ``source`` (Jinja rewrites them)."""
    line = 0
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == source:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _error(source: str, line: int, message: str) -> TemplateError:
    where = f"{source}:{line}" if line else source
    return TemplateError(f"jinja2 error at ({where}): {message}", SourcePos(source, line))


__all__ = ["ENGINE", "SUFFIX", "JinjaSet", "LimitError", "document_name", "is_jinja_file", "value_size"]
