"""Integer and decimal math as Sprig computes it (values from Go)."""
from __future__ import annotations

import math

import pytest

from helm_core.gotemplate.funcs import math as m
from helm_core.golib.gotypes import FuncError, Int64

CASES = [
    ("add_none", m.add, (), Int64(0)),
    ("add_casts", m.add, (1, "2", 1.9, True, None), Int64(5)),
    ("add_wraps", m.add, ((1 << 63) - 1, 1), Int64(-(1 << 63))),
    ("add1_string", m.add1, ("41",), Int64(42)),
    ("sub", m.sub, (1, 2.5), Int64(-1)),
    ("div_truncates_toward_zero", m.div, (-7, 2), Int64(-3)),
    ("mod_takes_dividend_sign", m.mod, (-7, 2), Int64(-1)),
    ("mul", m.mul, (2, "3", 4.9), Int64(24)),
    ("max", m.max_, (1, "9", 3.5), Int64(9)),
    ("min", m.min_, (1, "-9", 3.5), Int64(-9)),
    ("maxf_inf", m.maxf, (1, "+Inf"), math.inf),
    ("minf", m.minf, (1, -2.5), -2.5),
    ("floor", m.floor, ("1.7",), 1.0),
    ("ceil", m.ceil, (1.2,), 2.0),
    ("round_half_up", m.round_, (2.5, 0), 3.0),
    ("round_negative", m.round_, (-2.5, 0), -3.0),
    ("round_places", m.round_, (1.2345, 2), 1.23),
    ("round_custom_threshold", m.round_, (1.5, 0, 0.6), 1.0),
    ("addf_decimal_exact", m.addf, (0.1, 0.2), 0.3),
    ("mulf_decimal_exact", m.mulf, (1.1, 3), 3.3),
    ("divf_16_places", m.divf, (2, 3), 0.6666666666666667),
    ("divf_negative", m.divf, (-2, 3), -0.6666666666666667),
    ("divf_huge_is_inf", m.divf, (1e300, 1e-300), math.inf),
    ("subf", m.subf, (1,), 1.0),
    ("add1f", m.add1f, (1.5,), 2.5),
    ("until", m.until, (3,), [0, 1, 2]),
    ("until_negative", m.until, (-3,), [0, -1, -2]),
    ("untilStep_wrong_direction", m.until_step, (0, 10, -1), []),
    ("untilStep_down", m.until_step, (5, 0, -2), [5, 3, 1]),
    ("seq_none", m.seq, (), ""),
    ("seq_end", m.seq, (3,), "1 2 3"),
    ("seq_down", m.seq, (3, 1), "3 2 1"),
    ("seq_step", m.seq, (0, 5, 10), "0 5 10"),
    ("seq_step_away", m.seq, (5, 1, 1), ""),
    ("seq_zero", m.seq, (0,), "1 0"),
    ("seq_too_many", m.seq, (1, 2, 3, 4), ""),
]


@pytest.mark.parametrize(("fn", "args", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_math_results(fn, args, expected) -> None:
    result = fn(*args)
    assert result == expected and type(result) is type(expected)


ERRORS = [
    ("div_zero", m.div, (1, 0), "runtime error: integer divide by zero"),
    ("mod_zero", m.mod, (1, "0"), "runtime error: integer divide by zero"),
    ("divf_zero", m.divf, (1, 0), "decimal division by 0"),
    ("mulf_nan", m.mulf, ("nan", 2), "Cannot create a Decimal from NaN"),
    ("randInt_empty_range", m.rand_int, (2, 2), "invalid argument to Intn"),
]


@pytest.mark.parametrize(("fn", "args", "message"), [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_math_errors_are_go_panics(fn, args, message) -> None:
    with pytest.raises(FuncError) as err:
        fn(*args)
    assert str(err.value) == message


def test_rand_int_stays_in_half_open_range() -> None:
    assert {m.rand_int(3, 5) for _ in range(200)} == {3, 4}


def test_maxf_propagates_nan_like_math_max() -> None:
    assert math.isnan(m.maxf(1, "nan")) and math.isnan(m.minf("nan", 1))


def test_decimal_results_have_no_negative_zero() -> None:
    assert str(m.mulf(-2.5, 0)) == "0.0" and str(m.divf(0, -2)) == "0.0"
