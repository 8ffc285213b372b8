"""Kubernetes label selectors, as ``k8s.io/apimachinery/pkg/labels.Parse`` reads them: parsed,
refused in its words, and matched.

One grammar for the controller's ``--selector`` (checked at start-up, so a typo is one clear
line instead of a watch the API server refuses forever), post-renderer targets
(``labelSelector``/``annotationSelector``) and ``list --selector`` (helm's message is the
parser's own): comma-separated requirements, each ``key``, ``!key``, ``key=value``,
``key==value``, ``key!=value``, ``key in (v1,v2)``, ``key notin (v1,v2)``, ``key>N`` or
``key<N``.

Rules (apimachinery's lexer, recursive-descent parser and ``NewRequirement``):
- tokens: runs of ``= ! ( ) , > <`` read as the longest operator they start with, other runs
  up to a space, tab, CR, LF or one of those as identifiers (``in``/``notin`` are keywords
  after a key, identifiers where a value is expected);
- a key must be a label key (an optional DNS-1123 subdomain prefix and ``/``, a name of at most
  63 bytes), every value a label value, ``>``/``<`` values integers; a failure reads
  ``unable to parse requirement: <field>: Invalid value: "<v>": <why>`` with apimachinery's
  field paths (``<nil>`` for a key, ``values[i]``, ``values[i][key]``) and its aggregate of
  several (``[a, b]``);
- ``in``/``notin`` with ``()`` hold the empty value; values of a set are kept sorted.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from helm_core.golib import gostrconv

_LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_KEY_MSG = ("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
                  "alphanumeric character")
_LABEL_VALUE_FMT = f"({_LABEL_KEY_FMT})?"
_LABEL_VALUE_MSG = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
                    "'.', and must start and end with an alphanumeric character")
_DNS_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_SUBDOMAIN_FMT = _DNS_LABEL_FMT + "(\\." + _DNS_LABEL_FMT + ")*"
_SUBDOMAIN_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
                  "'.', and must start and end with an alphanumeric character")
_LABEL_KEY_RE = re.compile(_LABEL_KEY_FMT)
_LABEL_VALUE_RE = re.compile(_LABEL_VALUE_FMT)
_SUBDOMAIN_RE = re.compile(_SUBDOMAIN_FMT)
_NAME_MAX, _VALUE_MAX, _SUBDOMAIN_MAX = 63, 63, 253

_SPECIAL = "=!(),><"
_WHITESPACE = " \t\r\n"
_OPERATOR_TOKENS = ("==", "!=", "=", "!", "(", ")", ",", ">", "<")
_BINARY_OPERATORS = "in, notin, =, ==, !=, gt, lt"
_OPERATOR_NAMES = {"in": "in", "notin": "notin", "=": "=", "==": "==", "!=": "!=", ">": "gt", "<": "lt"}
"""A binary operator token and the operator it stands for (apimachinery's ``selection`` names)."""
_IDENTIFIER, _END = "identifier", "end"
_KEYWORDS = ("in", "notin")


class SelectorError(ValueError):
    """A selector apimachinery refuses; the message is its own."""


def _regex_error(message: str, fmt: str, *examples: str) -> str:
    shown = " or ".join(f"'{e}', " for e in examples)
    return f"{message} (e.g. {shown}regex used for validation is '{fmt}')"


def _key_errors(key: str) -> list[str]:
    """apimachinery's ``IsLabelKey``."""
    errors: list[str] = []
    parts = key.split("/")
    if len(parts) > 2:
        return ["a valid label key " + _regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
                + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]
    name = parts[-1]
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            errors.append("prefix part must be non-empty")
        else:
            if len(prefix.encode()) > _SUBDOMAIN_MAX:
                errors.append(f"prefix part must be no more than {_SUBDOMAIN_MAX} bytes")
            if not _SUBDOMAIN_RE.fullmatch(prefix):
                errors.append("prefix part " + _regex_error(_SUBDOMAIN_MSG, _SUBDOMAIN_FMT, "example.com"))
    if not name:
        errors.append("name part must be non-empty")
    elif len(name.encode()) > _NAME_MAX:
        errors.append(f"name part must be no more than {_NAME_MAX} bytes")
    if not _LABEL_KEY_RE.fullmatch(name):
        errors.append("name part " + _regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc"))
    return errors


def _value_errors(value: str) -> list[str]:
    """apimachinery's ``IsLabelValue``."""
    errors = [f"must be no more than {_VALUE_MAX} bytes"] if len(value.encode()) > _VALUE_MAX else []
    if not _LABEL_VALUE_RE.fullmatch(value):
        errors.append(_regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errors


def _invalid(path: str, value: str, detail: str) -> str:
    """A ``field.Invalid`` error's text."""
    return f"{path}: Invalid value: {gostrconv.quote(value)}: {detail}"


def label_errors(labels: Mapping[str, str], path: str = "metadata.labels") -> list[str]:
    """apimachinery's ``ValidateLabels`` of an object's labels, as the API server refuses them:
    for each label (in ``labels``' order; Go's is its map's), its key's ``field.Invalid`` errors,
    then its value's, under ``path``."""
    errors: list[str] = []
    for key, value in labels.items():
        errors += [_invalid(path, key, why) for why in _key_errors(key)]
        errors += [_invalid(path, value, why) for why in _value_errors(value)]
    return errors


def _is_int64(text: str) -> bool:
    """Go's ``strconv.ParseInt(text, 10, 64)`` succeeds."""
    digits = text[1:] if text[:1] in "+-" else text
    return bool(digits) and digits.isascii() and digits.isdigit() and -(1 << 63) <= int(text) < (1 << 63)


class Requirement:
    """One requirement of a selector: ``key``, an operator (apimachinery's names), values."""

    __slots__ = ("key", "operator", "values")

    def __init__(self, key: str, operator: str, values: list[str]) -> None:
        errors: list[str] = []
        if operator in ("gt", "lt"):
            errors += [_invalid(f"values[{i}]", v, "for 'Gt', 'Lt' operators, the value must be an integer")
                       for i, v in enumerate(values) if not _is_int64(v)]
        for i, value in enumerate(values):
            if problems := _value_errors(value):
                errors.append(_invalid(f"values[{i}][{key}]", value, "; ".join(problems)))
        if errors:
            unique = list(dict.fromkeys(errors))
            raise SelectorError(unique[0] if len(unique) == 1 else f"[{', '.join(unique)}]")
        self.key, self.operator, self.values = key, operator, values

    def matches(self, labels: Mapping[str, Any]) -> bool:
        """apimachinery's ``Requirement.Matches``."""
        present = self.key in labels
        value = str(labels[self.key]) if present else ""
        if self.operator in ("in", "=", "=="):
            return present and value in self.values
        if self.operator in ("notin", "!="):
            return not present or value not in self.values
        if self.operator == "exists":
            return present
        if self.operator == "!":
            return not present
        if not present or not _is_int64(value):  # gt, lt
            return False
        bound = int(self.values[0])
        return int(value) > bound if self.operator == "gt" else int(value) < bound


def _tokens(selector: str) -> list[tuple[str, str]]:
    """(kind, literal) pairs, ending with the end token (kind: an operator, a keyword,
    ``identifier`` or ``end``)."""
    tokens: list[tuple[str, str]] = []
    i, n = 0, len(selector)
    while True:
        while i < n and selector[i] in _WHITESPACE:
            i += 1
        if i >= n:
            tokens.append((_END, ""))
            return tokens
        if selector[i] in _SPECIAL:
            j = i
            while j < n and selector[j] in _SPECIAL and selector[i:j + 1] in _OPERATOR_TOKENS:
                j += 1
            tokens.append((selector[i:j], selector[i:j]))
            i = j
            continue
        j = i
        while j < n and selector[j] not in _SPECIAL and selector[j] not in _WHITESPACE:
            j += 1
        word = selector[i:j]
        tokens.append((word if word in _KEYWORDS else _IDENTIFIER, word))
        i = j


class _Parser:
    """apimachinery's label selector parser over :func:`_tokens`."""

    def __init__(self, selector: str) -> None:
        self.tokens = _tokens(selector)
        self.position = 0

    def lookahead(self, *, values: bool = True) -> tuple[str, str]:
        kind, literal = self.tokens[self.position]
        return (_IDENTIFIER if values and kind in _KEYWORDS else kind), literal

    def consume(self, *, values: bool = True) -> tuple[str, str]:
        token = self.lookahead(values=values)
        self.position += 1
        return token

    def parse(self) -> list[Requirement]:
        found: list[Requirement] = []
        while True:
            kind, literal = self.lookahead()
            if kind == _END:
                return found
            if kind not in (_IDENTIFIER, "!"):
                raise SelectorError(f"found '{literal}', expected: !, identifier, or 'end of string'")
            try:
                found.append(self.requirement())
            except SelectorError as exc:
                raise SelectorError(f"unable to parse requirement: {exc}") from None
            kind, literal = self.consume()
            if kind == _END:
                return found
            if kind != ",":
                raise SelectorError(f"found '{literal}', expected: ',' or 'end of string'")
            after, literal = self.lookahead()
            if after not in (_IDENTIFIER, "!"):
                raise SelectorError(f"found '{literal}', expected: identifier after ','")

    def requirement(self) -> Requirement:
        kind, key = self.consume()
        negated = kind == "!"
        if negated:
            kind, key = self.consume()
        if kind != _IDENTIFIER:
            raise SelectorError(f"found '{key}', expected: identifier")
        if problems := _key_errors(key):
            raise SelectorError(_invalid("<nil>", key, "; ".join(problems)))
        if negated:  # whatever follows is the parse loop's business ("!a=b": found '=')
            return Requirement(key, "!", [])
        if self.lookahead()[0] in (_END, ","):
            return Requirement(key, "exists", [])
        token, literal = self.consume(values=False)  # "in"/"notin" are operators here
        operator = _OPERATOR_NAMES.get(token)
        if operator is None:
            raise SelectorError(f"found '{literal}', expected: {_BINARY_OPERATORS}")
        if operator in ("in", "notin"):
            return Requirement(key, operator, self.value_set())
        return Requirement(key, operator, [self.exact_value()])

    def value_set(self) -> list[str]:
        kind, literal = self.consume()
        if kind != "(":
            raise SelectorError(f"found '{literal}' expected: '('")
        kind, literal = self.lookahead()
        if kind == ")":
            self.consume()
            return [""]
        if kind not in (_IDENTIFIER, ","):
            raise SelectorError(f"found '{literal}', expected: ',', ')' or identifier")
        values = self.identifiers()
        if self.consume()[0] != ")":
            raise SelectorError(f"found '{literal}', expected: ')'")
        return sorted(values)

    def identifiers(self) -> set[str]:
        values: set[str] = set()
        while True:
            kind, literal = self.consume()
            if kind == _IDENTIFIER:
                values.add(literal)
                after, following = self.lookahead()
                if after == ")":
                    return values
                if after != ",":
                    raise SelectorError(f"found '{following}', expected: ',' or ')'")
            elif kind == ",":
                after = self.lookahead()[0]
                if not values or after in (")", ","):
                    values.add("")  # "(,", ",)" and ",,": the empty value
                if after == ")":
                    return values
            else:
                raise SelectorError(f"found '{literal}', expected: ',', or identifier")

    def exact_value(self) -> str:
        kind, literal = self.lookahead()
        if kind in (_END, ","):
            return ""
        kind, literal = self.consume()
        if kind != _IDENTIFIER:
            raise SelectorError(f"found '{literal}', expected: identifier")
        return literal


def parse(selector: str) -> list[Requirement]:
    """The requirements of ``selector``; ``SelectorError`` in apimachinery's words."""
    return _Parser(selector).parse()


def validate(selector: str) -> str:
    """``selector`` stripped; raises ValueError naming it and, in apimachinery's words, what is
    wrong with it."""
    try:
        parse(selector)
    except SelectorError as exc:
        raise ValueError(f"invalid label selector {selector!r}: {exc}") from None
    return selector.strip()


def matches(selector: str, labels: Mapping[str, Any]) -> bool:
    """True when ``labels`` satisfy ``selector`` (empty matches everything); ValueError, as
    :func:`validate`, when it does not parse."""
    try:
        found = parse(selector or "")
    except SelectorError as exc:
        raise ValueError(f"invalid label selector {selector!r}: {exc}") from None
    return all(requirement.matches(labels) for requirement in found)
