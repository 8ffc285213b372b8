"""Arithmetic: int64 math (``add``, ``sub``, ``mul``, ``div``, ``mod``...), float math
(``addf``... via decimals), rounding, ``until``/``untilStep``/``seq`` and ``randInt``.

Why: Sprig converts every operand with cast (so ``add "2" 1.9`` is 3) and
returns Go int64 (:class:`~helm_core.golib.gotypes.Int64`) or float64; overflow wraps, integer division truncates toward
zero and a zero divisor is Go's recovered panic. The ``*f`` functions go through
shopspring/decimal (``NewFromFloat`` keeps the shortest float text; division
rounds half away from zero at 16 decimal places).
"""
from __future__ import annotations

import functools
import math as pymath
from collections.abc import Callable

from helm_core.golib.gotypes import FuncError, Int64, signature
from helm_core.gotemplate import budget
from helm_core.gotemplate.funcs import conversion, gohelpers
from helm_core.gotemplate.funcs import random as rand

TYPE_CHECKING = False
if TYPE_CHECKING:
    import decimal
    from typing import Any

#: shopspring/decimal's DivisionPrecision: decimal places kept by ``divf``.
DIVISION_PRECISION = 16
#: Working precision for exact decimal add/sub/mul of float64 operands.
_DECIMAL_PRECISION = 2000

_i64 = conversion.cast_int64
_f64 = conversion.cast_float64


@signature("interface {}", variadic=True)
def add(*values: Any) -> int:
    """``add``: int64 sum of all operands (0 when none)."""
    total = 0
    for v in values:
        total = gohelpers.wrap_int64(total + _i64(v))
    return Int64(total)


@signature("interface {}")
def add1(v: Any) -> int:
    """``add1``: int64(v) + 1."""
    return Int64(gohelpers.wrap_int64(_i64(v) + 1))


@signature("interface {}", "interface {}")
def sub(a: Any, b: Any) -> int:
    """``sub``: int64 a - b."""
    return Int64(gohelpers.wrap_int64(_i64(a) - _i64(b)))


def _go_div(a: int, b: int) -> int:
    if b == 0:
        raise FuncError("runtime error: integer divide by zero")
    q = abs(a) // abs(b)
    return gohelpers.wrap_int64(q if (a >= 0) == (b >= 0) else -q)


@signature("interface {}", "interface {}")
def div(a: Any, b: Any) -> int:
    """``div``: int64 division truncating toward zero; zero divisor is Go's panic."""
    return Int64(_go_div(_i64(a), _i64(b)))


@signature("interface {}", "interface {}")
def mod(a: Any, b: Any) -> int:
    """``mod``: int64 remainder with the dividend's sign."""
    x, y = _i64(a), _i64(b)
    if y == 0:
        raise FuncError("runtime error: integer divide by zero")
    r = abs(x) % abs(y)
    return Int64(-r if x < 0 else r)


@signature("interface {}", "interface {}", variadic=True)
def mul(a: Any, *rest: Any) -> int:
    """``mul``: int64 product."""
    total = _i64(a)
    for v in rest:
        total = gohelpers.wrap_int64(total * _i64(v))
    return Int64(total)


@signature("interface {}", "interface {}", variadic=True)
def max_(a: Any, *rest: Any) -> int:
    """``max``/``biggest``: the largest operand as int64."""
    best = _i64(a)
    for v in rest:
        best = max(best, _i64(v))
    return Int64(best)


@signature("interface {}", "interface {}", variadic=True)
def min_(a: Any, *rest: Any) -> int:
    """``min``: the smallest operand as int64."""
    best = _i64(a)
    for v in rest:
        best = min(best, _i64(v))
    return Int64(best)


def _go_max(x: float, y: float) -> float:
    """Go's ``math.Max``: +Inf wins, then NaN, then +0 over -0."""
    if pymath.isinf(x) and x > 0 or pymath.isinf(y) and y > 0:
        return pymath.inf
    if pymath.isnan(x) or pymath.isnan(y):
        return pymath.nan
    if x == 0 and y == 0:
        return x if pymath.copysign(1, x) > 0 else y
    return x if x > y else y


def _go_min(x: float, y: float) -> float:
    """Go's ``math.Min``: -Inf wins, then NaN, then -0 over +0."""
    if pymath.isinf(x) and x < 0 or pymath.isinf(y) and y < 0:
        return -pymath.inf
    if pymath.isnan(x) or pymath.isnan(y):
        return pymath.nan
    if x == 0 and y == 0:
        return x if pymath.copysign(1, x) < 0 else y
    return x if x < y else y


@signature("interface {}", "interface {}", variadic=True)
def maxf(a: Any, *rest: Any) -> float:
    """``maxf``: float64 maximum with math.Max rules."""
    best = _f64(a)
    for v in rest:
        best = _go_max(best, _f64(v))
    return best


@signature("interface {}", "interface {}", variadic=True)
def minf(a: Any, *rest: Any) -> float:
    """``minf``: float64 minimum with math.Min rules."""
    best = _f64(a)
    for v in rest:
        best = _go_min(best, _f64(v))
    return best


@signature("interface {}")
def floor(a: Any) -> float:
    """``floor``."""
    f = _f64(a)
    return f if pymath.isinf(f) or pymath.isnan(f) else float(pymath.floor(f)) if f != 0 else f


@signature("interface {}")
def ceil(a: Any) -> float:
    """``ceil``."""
    f = _f64(a)
    if pymath.isinf(f) or pymath.isnan(f) or f == 0:
        return f
    c = float(pymath.ceil(f))
    return -0.0 if c == 0 and f < 0 else c


@signature("interface {}", "int", "float64", variadic=True)
def round_(a: Any, places: int, *round_on: float) -> float:
    """``round``: round to ``places`` decimals; the fraction rounds up at ``roundOn`` (default .5)."""
    on = round_on[0] if round_on else 0.5
    val = _f64(a)
    try:
        pow_ = pymath.pow(10.0, float(places))
    except OverflowError:
        pow_ = pymath.inf
    digit = pow_ * val
    if pymath.isinf(digit) or pymath.isnan(digit):
        frac = pymath.nan if pymath.isnan(digit) else 0.0
    else:
        frac = pymath.modf(digit)[0]
    rounded = pymath.ceil(digit) if frac >= on and not pymath.isinf(digit) else (
        digit if pymath.isinf(digit) or pymath.isnan(digit) else pymath.floor(digit))
    return float(rounded) / pow_


@functools.cache
def _decimal_context() -> decimal.Context:
    """The context of the ``*f`` functions: exact add/sub/mul, division rounding half away from zero."""
    import decimal  # start-up time only the *f functions need (bench/deferred.py)

    return decimal.Context(prec=_DECIMAL_PRECISION, rounding=decimal.ROUND_HALF_UP)


def _to_decimal(ctx: decimal.Context, v: Any) -> decimal.Decimal:
    f = _f64(v)
    if pymath.isnan(f):
        raise FuncError("Cannot create a Decimal from NaN")
    if pymath.isinf(f):
        raise FuncError("Cannot create a Decimal from " + ("+Inf" if f > 0 else "-Inf"))
    return ctx.create_decimal(repr(f))


_DecimalOp = Callable[["decimal.Context", "decimal.Decimal", "decimal.Decimal"], "decimal.Decimal"]


def _decimal_op(a: Any, rest: tuple[Any, ...], op: _DecimalOp) -> float:
    ctx = _decimal_context()
    acc = _to_decimal(ctx, a)
    for v in rest:
        acc = op(ctx, acc, _to_decimal(ctx, v))
    result = float(acc)
    return 0.0 if result == 0 else result  # decimals have no negative zero


def _dadd(ctx: decimal.Context, x: decimal.Decimal, y: decimal.Decimal) -> decimal.Decimal:
    return ctx.add(x, y)


def _dsub(ctx: decimal.Context, x: decimal.Decimal, y: decimal.Decimal) -> decimal.Decimal:
    return ctx.subtract(x, y)


def _dmul(ctx: decimal.Context, x: decimal.Decimal, y: decimal.Decimal) -> decimal.Decimal:
    return ctx.multiply(x, y)


def _ddiv(ctx: decimal.Context, x: decimal.Decimal, y: decimal.Decimal) -> decimal.Decimal:
    if y == 0:
        raise FuncError("decimal division by 0")
    # quantize rounds with the context's rounding: half away from zero, as shopspring/decimal
    return ctx.divide(x, y).quantize(ctx.create_decimal(1).scaleb(-DIVISION_PRECISION), context=ctx)


@signature("interface {}")
def add1f(a: Any) -> float:
    """``add1f``: a + 1 in decimal arithmetic."""
    return _decimal_op(a, (1,), _dadd)


@signature("interface {}", variadic=True)
def addf(*values: Any) -> float:
    """``addf``: decimal sum starting at 0."""
    return _decimal_op(0.0, values, _dadd)


@signature("interface {}", "interface {}", variadic=True)
def subf(a: Any, *rest: Any) -> float:
    """``subf``."""
    return _decimal_op(a, rest, _dsub)


@signature("interface {}", "interface {}", variadic=True)
def mulf(a: Any, *rest: Any) -> float:
    """``mulf``."""
    return _decimal_op(a, rest, _dmul)


@signature("interface {}", "interface {}", variadic=True)
def divf(a: Any, *rest: Any) -> float:
    """``divf``: decimal division (16 places, half away from zero); 0 divisor errors."""
    return _decimal_op(a, rest, _ddiv)


def until_step_list(start: int, stop: int, step: int) -> list[int]:
    """Sprig's ``untilStep``: empty when the step points away from ``stop``."""
    if (step >= 0) if stop < start else (step <= 0):
        return []
    numbers = range(start, stop, step)
    budget.check_size(len(numbers), budget.LIST_ITEM_BYTES, what=f"a list of {len(numbers)} numbers")
    return list(numbers)


@signature("int")
def until(count: int) -> list[int]:
    """``until``: 0..count-1 (or down to count+1 when negative)."""
    return until_step_list(0, count, -1 if count < 0 else 1)


@signature("int", "int", "int")
def until_step(start: int, stop: int, step: int) -> list[int]:
    """``untilStep``."""
    return until_step_list(start, stop, step)


@signature("int", variadic=True)
def seq(*params: int) -> str:
    """``seq`` like GNU seq: ``seq END``, ``seq START END``, ``seq START STEP END``."""
    if len(params) == 1:
        start, end = 1, params[0]
        inc = -1 if end < start else 1
        nums = until_step_list(start, end + inc, inc)
    elif len(params) == 2:
        start, end = params
        step = -1 if end < start else 1
        nums = until_step_list(start, end + step, step)
    elif len(params) == 3:
        start, step, end = params
        inc = 1
        if end < start:
            inc = -1
            if step > 0:
                return ""
        nums = until_step_list(start, end + inc, step)
    else:
        return ""
    return " ".join(str(n) for n in nums)


@signature("int", "int")
def rand_int(lo: int, hi: int) -> int:
    """``randInt``: uniform in [lo, hi); an empty range is Go's ``rand.Intn`` panic."""
    if hi - lo <= 0:
        raise FuncError("invalid argument to Intn")
    return lo + rand.below(hi - lo)


FUNCS = {
    "add": add,
    "add1": add1,
    "sub": sub,
    "div": div,
    "mod": mod,
    "mul": mul,
    "max": max_,
    "biggest": max_,
    "min": min_,
    "maxf": maxf,
    "minf": minf,
    "floor": floor,
    "ceil": ceil,
    "round": round_,
    "add1f": add1f,
    "addf": addf,
    "subf": subf,
    "mulf": mulf,
    "divf": divf,
    "until": until,
    "untilStep": until_step,
    "seq": seq,
    "randInt": rand_int,
}
