"""User values as the command line and the controller give them (Helm's ``values.Options``)."""
from __future__ import annotations

from collections.abc import Callable

from helm_core.chart import values as chart_values
from helm_core.golib import gojson, goyaml
from helm_core.support.records import field, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@record(frozen=True)
class ValuesOptions:
    """Where user values come from; merged in Helm's order (files, then each --set flavour)."""

    #: ``-f`` files: paths, or ``-`` is not supported (read the file yourself).
    value_files: tuple[str, ...] = ()
    #: ``--set-json`` entries (``a.b={"json":1}``).
    set_json: tuple[str, ...] = ()
    #: ``--set`` entries, typed as Helm types them (``a=1`` is an int64).
    set_values: tuple[str, ...] = ()
    #: ``--set-string`` entries: always strings.
    set_string: tuple[str, ...] = ()
    #: ``--set-file`` entries: ``key=path``, the value is the file's content.
    set_file: tuple[str, ...] = ()
    #: ``--set-literal`` entries: the value is taken verbatim.
    set_literal: tuple[str, ...] = ()
    #: Values given directly, as JSON-decoded data (the library API); merged first and typed
    #: as Go decodes JSON (numbers float64), like the controller's ``spec.values``.
    inline: dict[str, Any] = field(default_factory=dict)


def merge(options: ValuesOptions, *, read: Callable[[str], bytes] = chart_values.read_user_file) -> dict[str, Any]:
    """The user-supplied values, merged as ``helm template/install`` merges them."""
    docs = [gojson.load_values(options.inline, context="values")] if options.inline else []
    docs += [goyaml.load_values(read(p), context=f"failed to parse {p}") for p in options.value_files]
    return chart_values.merge_user_values(
        docs,
        set_json=list(options.set_json),
        set=list(options.set_values),
        set_string=list(options.set_string),
        set_file=list(options.set_file),
        set_literal=list(options.set_literal),
        file_reader=lambda p: read(p).decode("utf-8", "replace"),
    )
