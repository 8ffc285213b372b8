"""The full YAML reader behind :mod:`helm_core.golib.goyaml`: libyaml composes, and
:mod:`helm_core.golib.goyaml_convert` types the nodes with yaml.v2's rules.

Kept apart from :mod:`helm_core.golib.goyaml` because importing PyYAML is costly (its modules
compile regular expressions at import; ``bench/deferred.py``): a run whose documents all come
from the disk memo or the block fast path (:mod:`helm_core.golib.goyaml_block`) never imports
it. The rules are listed in :mod:`helm_core.golib.goyaml`.
"""
from __future__ import annotations

import contextlib
import re
from collections.abc import Generator, Iterator

import yaml

from helm_core.golib import goyaml_convert
from helm_core.golib.goyaml_rules import MAX_DEPTH, TAG_PLAIN

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: libyaml's parser when present: the C code yaml.v2 was ported from, and faster.
_BaseLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _GoLoader(_BaseLoader):  # type: ignore[misc]
    """Composes nodes only; every untagged plain scalar gets :data:`TAG_PLAIN`."""


_GoLoader.yaml_implicit_resolvers = {}


def _allow_go_nesting() -> None:
    """libyaml refuses more than 1000 nested collections; yaml.v2 allows 10000 flow levels
    and 10000 block indents (counted apart), so libyaml may nest both: the builder then
    applies yaml.v2's two limits. The setter is exported by PyYAML's bundled libyaml."""
    try:
        import ctypes

        from yaml import _yaml

        ctypes.CDLL(_yaml.__file__).yaml_set_max_nest_level(2 * MAX_DEPTH + 1)
    except (ImportError, OSError, AttributeError):  # pure-Python PyYAML: it has no such limit
        pass


_allow_go_nesting()
_GoLoader.add_implicit_resolver(TAG_PLAIN, re.compile(r"(?s).*"), [None, ""])


def _describe_yaml_error(exc: yaml.YAMLError) -> str:
    """yaml.v2's ``yaml: line N: problem`` text for a libyaml reader, scanner or parser error."""
    if isinstance(exc, yaml.reader.ReaderError):  # yaml.v2 names no line for what its reader refuses
        return f"yaml: {exc.reason}"
    problem = getattr(exc, "problem", None) or str(exc)
    if problem == "exceeded maximum nesting depth":  # libyaml's limit, met only past yaml.v2's
        problem = f"exceeded max depth of {MAX_DEPTH}"
    problem_mark = getattr(exc, "problem_mark", None)
    context_mark = getattr(exc, "context_mark", None)
    line = 0
    if problem_mark is not None and problem_mark.line != 0:
        line = problem_mark.line
        if isinstance(exc, yaml.scanner.ScannerError):
            line += 1
    elif context_mark is not None and context_mark.line != 0:
        line = context_mark.line
    return f"yaml: line {line}: {problem}" if line else f"yaml: {problem}"


def _self_referencing_anchor(text: str) -> str:
    """The anchor whose value contains an alias to itself (found again from parse events): the
    first alias to a collection still open, the latest definition of its name."""
    open_stack: list[int] = []  # the open collections, by their number in the text
    still_open: set[int] = set()
    latest: dict[str, int] = {}  # what each anchor names now (-1: a scalar)
    for number, event in enumerate(yaml.parse(text, Loader=_GoLoader)):
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            open_stack.append(number)
            still_open.add(number)
            if event.anchor is not None:
                latest[event.anchor] = number
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            still_open.discard(open_stack.pop())
        elif isinstance(event, yaml.ScalarEvent) and event.anchor is not None:
            latest[event.anchor] = -1
        elif isinstance(event, yaml.AliasEvent) and latest.get(str(event.anchor)) in still_open:
            return str(event.anchor)
        elif isinstance(event, yaml.DocumentStartEvent):
            latest.clear()
    return ""  # pragma: no cover - only called after a self reference was built


class _RedefiningComposer:
    """Composes libyaml's events into nodes as PyYAML's composer does, except that an anchor
    defined again names its new node for the aliases after it, as yaml.v2's parser keeps the
    latest (PyYAML refuses the second definition). Used only for the texts PyYAML refuses so."""

    def __init__(self, text: str) -> None:
        self.loader = _GoLoader(text)
        self.anchors: dict[str, Any] = {}

    def documents(self) -> Generator[Any, None, None]:
        loader = self.loader
        try:
            loader.get_event()  # the stream's start
            while not loader.check_event(yaml.StreamEndEvent):
                loader.get_event()  # the document's start
                node = self.node()
                loader.get_event()  # the document's end
                self.anchors = {}
                yield node
        finally:
            loader.dispose()

    def node(self) -> Any:
        loader = self.loader
        event = loader.get_event()
        kind = type(event)  # (CParser's events carry its own Mark class, not the one PyYAML's stubs name)
        if kind is yaml.AliasEvent:
            aliased = self.anchors.get(event.anchor)
            if aliased is None:
                raise yaml.composer.ComposerError(None, None, "found undefined alias", event.start_mark)
            return aliased
        tag = event.tag
        node: Any
        if kind is yaml.ScalarEvent:
            if tag is None or tag == "!":
                tag = loader.resolve(yaml.ScalarNode, event.value, event.implicit)
            node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)
        else:
            sequence = kind is yaml.SequenceStartEvent
            node_class = yaml.SequenceNode if sequence else yaml.MappingNode
            if tag is None or tag == "!":
                tag = loader.resolve(node_class, None, event.implicit)
            node = node_class(tag, [], event.start_mark, None, event.flow_style)
        if event.anchor is not None:
            self.anchors[event.anchor] = node  # before a collection's children: they may alias it
        if kind is yaml.ScalarEvent:
            return node
        end = yaml.SequenceEndEvent if sequence else yaml.MappingEndEvent
        while not loader.check_event(end):
            node.value.append(self.node() if sequence else (self.node(), self.node()))
        node.end_mark = loader.get_event().end_mark
        return node


def _undefined_alias(exc: yaml.YAMLError, text: str) -> str | None:
    """yaml.v2's text for an alias to an unknown anchor (the name is read at the error mark)."""
    if not (getattr(exc, "problem", "") or "").startswith("found undefined alias"):
        return None
    mark = getattr(exc, "problem_mark", None)
    start = mark.index + 1 if mark is not None else 0
    name = re.match(r"[^\s,\[\]{}]*", text[start:])
    return f"yaml: unknown anchor '{name.group(0) if name else ''}' referenced"


@contextlib.contextmanager
def _go_errors(text: str) -> Iterator[None]:
    """Turn parser and converter failures into Go's ``error converting YAML to JSON: ...`` texts."""
    with goyaml_convert.go_errors():
        try:
            yield
        except yaml.YAMLError as exc:
            raise ValueError(_undefined_alias(exc, text) or _describe_yaml_error(exc)) from None
        except goyaml_convert.SelfReference:
            raise ValueError(f"yaml: anchor '{_self_referencing_anchor(text)}' value contains itself") from None


def decode(text: str) -> Any:
    """The first document of ``text`` with Helm's typing (see :mod:`helm_core.golib.goyaml`)."""
    return _first_document(text, json_step=True)


def decode_unconverted(text: str) -> Any:
    """The first document as yaml.v2 types it (ints stay ints, NaN stays), before the JSON
    step: what sigs.k8s.io/yaml converts for a typed target such as Helm's ``chart.Metadata``."""
    return _first_document(text, json_step=False)


def _first_document(text: str, *, json_step: bool) -> Any:
    with _go_errors(text), contextlib.closing(_documents(text)) as documents:
        return goyaml_convert.convert(next(documents, None), json_step=json_step, anchors=_may_have_anchors(text))


def decode_all(data: bytes | str) -> list[Any]:
    """Every document of a stream, each decoded as :func:`decode` does (for multi-doc tools)."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    anchors = _may_have_anchors(text)
    with _go_errors(text), contextlib.closing(_documents(text)) as documents:
        return [goyaml_convert.convert(node, json_step=True, anchors=anchors) for node in documents]


def _documents(text: str) -> Generator[Any, None, None]:
    """The root node of each document as libyaml composes it; from a document with an anchor
    defined again (PyYAML's composer refuses it) on, as :class:`_RedefiningComposer` does."""
    loader = _GoLoader(text)
    composed = 0
    try:
        while loader.check_node():
            try:
                node = loader.get_node()
            except yaml.composer.ComposerError as exc:
                if not (exc.context or "").startswith("found duplicate anchor"):
                    raise
                break
            yield node
            composed += 1
        else:
            return
    finally:
        loader.dispose()
    documents = _RedefiningComposer(text).documents()
    for _ in range(composed):  # those were given already
        next(documents)
    yield from documents


def _may_have_anchors(text: str) -> bool:
    """Only an alias ('*name') to an anchor ('&name') makes a node met twice."""
    return "&" in text and "*" in text

