"""Schema violations worded as Helm words them: santhosh-tekuri/jsonschema v6's error tree.

Helm 3.22 validates values with jsonschema v6 and prints its error tree: one line per failure,
``- at '<json pointer>': <message>``, causes indented under the failure they explain. That
tree has its own shape (a failing ``type`` stops a subschema; ``anyOf``/``allOf``/``oneOf``
carry their members' failures; several failures of one value are grouped under "validation
failed"; a ``$ref`` with one cause is not printed itself), so it is rebuilt here by walking the
schema in v6's keyword order. Only failing values are walked (python-jsonschema decided they
fail): this module words, it does not decide what passes.

Go's map iteration order is random: v6 visits an object's properties (and a schema's
``patternProperties``/``dependencies``) in an order that changes from run to run. Here they go
in sorted (properties) or schema (keywords) order, one of the orders helm prints.

Numbers are printed as v6 prints them: through golang.org/x/text's English printer (grouped
integers, ``1.5×10⁰⁶``) for keyword bounds, through fmt for enum and const values.
"""
from __future__ import annotations

from fractions import Fraction

from helm_core.golib import gostrconv, gotypes
from helm_core.support import jsonpointers

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: v6's order of type names in "want" (a bit set, not the schema's order).
TYPE_ORDER = ("null", "boolean", "number", "integer", "string", "array", "object")
_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")

Path = tuple[str, ...]


class Failure:
    """One node of v6's error tree: where, what, and the failures that explain it."""

    __slots__ = ("path", "message", "causes", "reference", "group")

    def __init__(self, path: Path, message: str, causes: list[Failure] | None = None, *,
                 reference: bool = False, group: bool = False) -> None:
        self.path = path
        self.message = message
        self.causes = causes or []
        self.reference = reference
        self.group = group


# -- wording ----------------------------------------------------------------------------------

def quote(text: str) -> str:
    """v6's quoting: Go's ``%q`` turned to single quotes (``"`` kept, ``'`` escaped)."""
    quoted = gostrconv.quote(text).replace('\\"', '"').replace("'", "\\'")
    return "'" + quoted[1:-1] + "'"


def pointer(path: Path) -> str:
    return jsonpointers.join(path)


def printed_int(number: int) -> str:
    """An int as x/text's English printer writes ``%d``: digits grouped by commas."""
    return f"{number:,}"


def printed_float(number: float) -> str:
    """A float64 as x/text's English printer writes ``%v``: Go's shortest ``%g`` choice of
    form, grouped digits in decimal form, ``d.ddd×10ⁿⁿ`` (at least two exponent digits) else."""
    shortest = gostrconv.format_float(number, "e", -1)
    mantissa, _, exponent = shortest.partition("e")
    exp = int(exponent)
    if exp < -4 or exp >= 6:  # strconv's 'g' with the shortest digits
        sign = "-" if exp < 0 else ""
        return f"{mantissa}×10{(sign + f'{abs(exp):02d}').translate(_SUPERSCRIPT)}"
    text = gostrconv.format_float(number, "f", -1)
    negative = text.startswith("-")
    whole, dot, fraction = text.lstrip("-").partition(".")
    return ("-" if negative else "") + f"{int(whole):,}" + dot + fraction


def joined(names: list[str]) -> str:
    return ", ".join(quote(n) for n in names)


def required_message(missing: list[str]) -> str:
    if len(missing) == 1:
        return f"missing property {quote(missing[0])}"
    return f"missing properties {joined(missing)}"


def dependency_message(name: str, missing: list[str]) -> str:
    """``dependencies`` and ``dependentRequired``: always "properties", one missing or more."""
    return f"properties {joined(missing)} required, if {quote(name)} exists"


def enum_message(options: list[Any]) -> str:
    if any(isinstance(o, (list, dict)) for o in options):
        return "'enum' failed"
    if len(options) == 1:
        return f"value must be {_display(options[0])}"
    return "value must be one of " + ", ".join(_display(o) for o in options)


def const_message(wanted: Any) -> str:
    return "'const' failed" if isinstance(wanted, (list, dict)) else f"value must be {_display(wanted)}"


def min_contains_message(wanted: int, matched: list[int]) -> str:
    head = f"min {printed_int(wanted)} items required to match contains schema, but"
    if not matched:
        return f"{head} none matched"
    return f"{head} matched {printed_int(len(matched))} items at {' '.join(map(str, matched))}"


def max_contains_message(wanted: int, matched: list[int]) -> str:
    return (f"max {printed_int(wanted)} items required to match contains schema, but matched "
            f"{printed_int(len(matched))} items at {' '.join(map(str, matched))}")


class JsonNumber(float):
    """A schema's JSON number with a fraction or exponent, and its text (``json.loads``'
    ``parse_float``): v6 keeps schema numbers as json.Number and prints them as written."""

    __slots__ = ("literal",)
    literal: str

    def __new__(cls, text: str) -> JsonNumber:
        number = super().__new__(cls, text)
        number.literal = text
        return number


def _display(value: Any) -> str:
    """A schema's or a value's primitive as v6's ``display`` writes it (Go's ``%v``)."""
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, (list, dict)):
        return "value"
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, JsonNumber):
        return value.literal
    if isinstance(value, float):
        # A schema read without its text (values.schema.yaml): Python's shortest form of the
        # number, which is its text for most ("2.5"), not all ("1e3" comes back as "1000.0").
        return repr(value)
    return str(value)


def lines(failures: list[Failure]) -> list[str]:
    """The report's lines for the top failures, causes indented under them as v6 prints."""
    out: list[str] = []
    for failure in failures:
        _display_tree(failure, 1, out)
    return out


def _display_tree(failure: Failure, indent: int, out: list[str]) -> None:
    if failure.reference and len(failure.causes) == 1:  # v6 skips a $ref explained by one cause
        _display_tree(failure.causes[0], indent, out)
        return
    out.append(f"{'  ' * (indent - 1)}- at {quote(pointer(failure.path))}: {failure.message}")
    for cause in failure.causes:
        _display_tree(cause, indent + 1, out)


# -- values as v6 sees them --------------------------------------------------------------------

def type_of(value: Any) -> str | None:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return None


def rational(number: int | float) -> Fraction:
    """The number as v6 compares it: big.Rat of its ``%v`` text (decimal digits, not binary);
    a schema's number as written (v6 reads schemas' numbers as json.Number)."""
    if isinstance(number, int):
        return Fraction(number)
    return Fraction(number.literal if isinstance(number, JsonNumber) else repr(number))


def is_integer(value: Any) -> bool:
    return rational(value).denominator == 1


def equal(one: Any, two: Any) -> bool:
    """v6's ``equals``: numbers by value, booleans apart from numbers, containers deeply."""
    kind = type_of(one)
    if kind != type_of(two):
        return False
    if kind == "number":
        return bool(rational(one) == rational(two))
    if kind == "array":
        return len(one) == len(two) and all(equal(a, b) for a, b in zip(one, two, strict=True))
    if kind == "object":
        return one.keys() == two.keys() and all(equal(one[k], two[k]) for k in one)
    return bool(one == two)


def first_equal_pair(items: list[Any]) -> tuple[int, int] | None:
    """The pair v6's ``uniqueItems`` reports (the first later item equal to an earlier one, and
    the first such earlier one), or None when all differ. v6 compares every pair; here each
    item is keyed once by what :func:`equal` compares (a chart's array of 30000 maps took
    minutes pair by pair)."""
    first: dict[Any, int] = {}
    try:
        for i, item in enumerate(items):
            j = first.setdefault(_equality_key(item), i)
            if j != i:
                return j, i
    except (ValueError, TypeError):  # a number Fraction cannot take (NaN): pair by pair
        for i in range(1, len(items)):
            for j in range(i):
                if equal(items[i], items[j]):
                    return j, i
    return None


def _equality_key(value: Any) -> Any:
    """A hashable key that two values share exactly when :func:`equal` holds."""
    kind = type_of(value)
    if kind == "number":
        return kind, rational(value)
    if kind == "array":
        return kind, tuple(map(_equality_key, value))
    if kind == "object":
        return kind, frozenset((k, _equality_key(v)) for k, v in value.items())
    return kind, value


def subchart_type_error(value: Any) -> str:
    """Helm's line for subchart values that are not a map (Go's ``%T`` of the value)."""
    return f"invalid type for values: expected object (map), got {gotypes.go_type_name(value)}"
