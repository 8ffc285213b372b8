"""Values of a chart and its subcharts, merged exactly as Helm 3.22 merges them.

Where the rules come from (Helm v3.22.0): ``pkg/cli/values/options.go`` (user values),
``pkg/chartutil/coalesce.go`` (chart defaults under user values), ``values.go``
(``Table``/``PathValue``) and ``dependencies.go`` (``import-values``).

Rules of :func:`coalesce_values` (``chartutil.CoalesceValues``):

* user values win; maps merge key by key; scalars and lists replace whole;
* a user ``None`` (YAML ``null``) deletes the key when the chart has a default for it, at
  any depth; a ``None`` with no default under it stays ``None``;
* a map default and a scalar override (or the reverse) keep the side that wins and log
  Helm's warning (:mod:`helm_core.support.helmlog`), as each of Helm's coalesces does;
* each subchart sees ``values[<name>]``, where ``<name>`` is the subchart's
  ``metadata.name``: dependency processing gives an aliased copy the alias as its name, as
  Helm's ``getAliasDependency`` does;
* the parent's ``global`` is copied into every subchart's ``global`` (parent wins) and never
  flows up; Helm shares nested global maps between parent and child, so a subchart's
  defaults two levels deep under ``global`` show in the parent too, and that is kept here.

Numbers keep their Go typing: ``float`` from YAML and JSON, ``int`` (int64) from ``--set``.
No function here changes a chart or a caller's dict: every one works on its own copy.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from helm_core.chart import model
from helm_core.errors import ValuesError
from helm_core.golib import gostrconv
from helm_core.golib.gojson import copy_tree, load_values
from helm_core.gotemplate import gofmt
from helm_core.support import helmlog, records

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from helm_core.chart import strvals

#: The values key that is passed down to every subchart.
GLOBAL_KEY = "global"

def copy_values(values: Mapping[str, Any]) -> dict[str, Any]:
    """A deep copy of a values map (dicts and lists copied, scalars shared)."""
    return {key: copy_tree(item) for key, item in values.items()}


# -- user values (``values.Options.MergeValues``) ----------------------------------------
#: The largest ``-f`` / ``--set-file`` file read. Helm reads without bound, so a device such as
#: /dev/zero grows it until the machine runs out of memory; no real values file is near this.
MAX_USER_FILE_BYTES = 100 * 1024 * 1024


def read_user_file(path: str, *, limit: int = MAX_USER_FILE_BYTES) -> bytes:
    """A user's values file, errors worded as Go's ``os.ReadFile`` (``open x: no such file or
    directory``); FIFOs and devices are read as Helm reads them, but never past ``limit``."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
    except IsADirectoryError:
        raise ValuesError(f"read {path}: is a directory") from None
    except OSError as exc:
        reason = (exc.strerror or str(exc)).lower()
        raise ValuesError(f"open {path}: {reason}") from None
    if len(data) > limit:
        raise ValuesError(f"read {path}: more than {limit} bytes (a device or a stream without end?)")
    return data


def read_local_file(path: str) -> str:
    """The default ``--set-file`` reader: the file's text."""
    return read_user_file(path).decode("utf-8", "replace")


def merge_user_values(
    files: Sequence[Mapping[str, Any]],
    *,
    set_json: Sequence[str] = (),
    set: Sequence[str] = (),  # noqa: A002 - the flag's own name
    set_string: Sequence[str] = (),
    set_file: Sequence[str] = (),
    set_literal: Sequence[str] = (),
    file_reader: strvals.FileReader = read_local_file,
) -> dict[str, Any]:
    """Helm's ``MergeValues``: ``-f`` maps merged in order (later wins, maps merge deep),
    then ``--set-json``, ``--set``, ``--set-string``, ``--set-file``, ``--set-literal``.

    Errors read as the CLI prints them: ``failed parsing --set data: key "a" has no value``;
    ``--set-json`` errors name the whole flag value only, as Helm's do.
    """
    # The --set parsers, for lines that give such flags only.
    from helm_core.chart import strvals

    base: dict[str, Any] = {}
    for values in files:
        base = merge_maps(base, copy_values(values))
    for text in set_json:
        try:
            base = strvals.parse_set_json(text, base)
        except ValuesError:
            raise ValuesError(f"failed parsing --set-json data {text}") from None
    steps: list[tuple[str, Sequence[str], Callable[[str, dict[str, Any]], dict[str, Any]]]] = [
        ("--set", set, strvals.parse_set),
        ("--set-string", set_string, strvals.parse_set_string),
        ("--set-file", set_file, lambda s, into: strvals.parse_set_file(s, file_reader, into=into)),
        ("--set-literal", set_literal, strvals.parse_set_literal),
    ]
    for flag, texts, parse in steps:
        for text in texts:
            try:
                base = parse(text, base)
            except ValuesError as exc:
                raise ValuesError(f"failed parsing {flag} data: {exc}") from None
    return base


def merge_maps(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """``mergeMaps`` of options.go: b over a; maps merge, anything else (even None) replaces."""
    out = dict(a)
    for key, value in b.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge_maps(out[key], value)
        else:
            out[key] = value
    return out


# -- chart values under user values (``chartutil.CoalesceValues``) --------------------------
def coalesce_values(chart: model.Chart, user_values: Mapping[str, Any] | None) -> dict[str, Any]:
    """The final ``.Values`` of ``chart``: its defaults and its subcharts' under ``user_values``.

    Raises ValuesError ``type mismatch on <sub>: ...`` when a subchart's key holds a non-map.
    """
    dest = copy_values(user_values or {})
    return _Coalescer(merge=False).chart(chart, dest, "")


def coalesce_stored(chart_name: str, chart_values: Mapping[str, Any],
                    user_values: Mapping[str, Any] | None) -> dict[str, Any]:
    """Helm's ``CoalesceValues(rel.Chart, rel.Config)`` of a release read back from its JSON
    record: the stored chart has no subcharts (helm keeps none), so its own values under the
    user's, every number a float64 as Go reads JSON (the warnings print them so), and the
    warnings' paths start with the chart's name."""
    metadata = model.Metadata(api_version=model.API_VERSION_V2, name=chart_name, version="")
    defaults = load_values(dict(chart_values), context="release chart values")
    return coalesce_values(model.Chart(metadata=metadata, values=defaults),
                           load_values(dict(user_values or {}), context="release values"))


def merge_values(chart: model.Chart, user_values: Mapping[str, Any] | None) -> dict[str, Any]:
    """Helm's ``MergeValues``: as :func:`coalesce_values`, but ``None`` values are kept
    (used before ``import-values`` so that a later coalesce can still delete keys)."""
    dest = copy_values(user_values or {})
    return _Coalescer(merge=True).chart(chart, dest, "")


def coalesce_tables(dst: Mapping[str, Any], src: Mapping[str, Any]) -> dict[str, Any]:
    """Helm's ``CoalesceTables`` (``upgrade --reuse-values``): ``dst`` wins over ``src``;
    a ``None`` in ``dst`` over a value in ``src`` deletes the key."""
    return _Coalescer(merge=False).tables(copy_values(dst), copy_values(src), "")


def merge_tables(dst: Mapping[str, Any], src: Mapping[str, Any]) -> dict[str, Any]:
    """Helm's ``MergeTables``: as :func:`coalesce_tables`, keeping ``None`` values."""
    return _Coalescer(merge=True).tables(copy_values(dst), copy_values(src), "")


def _concat(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


class _Coalescer:
    """Helm's coalesce helpers; ``merge`` keeps ``None`` values instead of deleting keys.

    The methods change the dicts they are given in place, as Helm's do (results depend on
    that sharing); public functions hand them private copies only.
    """

    def __init__(self, *, merge: bool) -> None:
        self.merge = merge

    @staticmethod
    def warn(where: str, text: str) -> None:
        """Helm's ``log.Printf`` warning ``text``, from ``where`` (file and line) in its sources."""
        helmlog.warn(__name__, where, text)

    def chart(
        self,
        chart: model.Chart,
        dest: dict[str, Any],
        prefix: str,
        own_values: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """``coalesce``: this chart's defaults, then each subchart's under its key."""
        self.defaults(chart, dest, prefix, chart.values if own_values is None else own_values)
        for sub in chart.dependencies:
            name = sub.name
            if name not in dest:
                dest[name] = {}
            elif not isinstance(dest[name], dict):
                raise ValuesError(f"type mismatch on {name}: {gofmt.sprintf('%t', dest[name])}")
            sub_prefix = _concat(prefix, chart.name)
            self.globals(dest[name], dest, sub_prefix)
            dest[name] = self.chart(sub, dest[name], sub_prefix)
        return dest

    def defaults(
        self, chart: model.Chart, dest: dict[str, Any], prefix: str, values: Mapping[str, Any]
    ) -> None:
        """``coalesceValues``: the chart's own defaults under ``dest``."""
        sub_prefix = _concat(prefix, chart.name)
        subcharts = {sub.name for sub in chart.dependencies}
        # The chart's values are only read: what dest takes is copied (most of a subchart's
        # defaults are already in dest when the parent's values hold its section).
        for key, default in values.items():
            if key not in dest:
                dest[key] = copy_tree(default)
                continue
            value = dest[key]
            if value is None and not self.merge:
                del dest[key]
            elif isinstance(value, dict):
                if not isinstance(default, dict):
                    if default is not None:
                        self.warn("coalesce.go:237", f"warning: skipped value for {sub_prefix}.{key}: Not a table.")
                elif key in subcharts:  # a subchart's section keeps its nulls for now
                    _Coalescer(merge=True).tables(value, default, _concat(sub_prefix, key), read_only_src=True)
                else:
                    self.tables(value, default, _concat(sub_prefix, key), read_only_src=True)

    def globals(self, dest: dict[str, Any], src: dict[str, Any], prefix: str) -> None:
        """``coalesceGlobals``: the parent's ``global`` (``src``) into a subchart's (``dest``)."""
        dest_global = dest.get(GLOBAL_KEY, {})
        if not isinstance(dest_global, dict):
            self.warn("coalesce.go:138", f"warning: skipping globals because destination {GLOBAL_KEY} is not a table.")
            return
        src_global = src.get(GLOBAL_KEY, {})
        if not isinstance(src_global, dict):
            self.warn("coalesce.go:145", f"warning: skipping globals because source {GLOBAL_KEY} is not a table.")
            return
        for key, value in src_global.items():
            if isinstance(value, dict):
                parent_copy = dict(value)  # shallow, as Helm's copyMap: nested maps are shared
                if key not in dest_global:
                    dest_global[key] = parent_copy
                elif not isinstance(dest_global[key], dict):
                    self.warn("coalesce.go:161",
                              f"Conflict: cannot merge map onto non-map for {gostrconv.quote(key)}. Skipping.")
                else:
                    _Coalescer(merge=True).tables(parent_copy, dest_global[key], _concat(prefix, key))
                    dest_global[key] = parent_copy
            elif isinstance(dest_global.get(key), dict):
                self.warn("coalesce.go:175", f"key {key} is table. Skipping")
            else:
                dest_global[key] = value
        dest[GLOBAL_KEY] = dest_global

    def tables(
        self, dst: dict[str, Any], src: dict[str, Any], prefix: str, *, read_only_src: bool = False
    ) -> dict[str, Any]:
        """``coalesceTablesFullKey``: ``src`` under ``dst`` (``dst`` wins), in place.

        As Helm's, it marks ``src`` with a null where ``dst`` holds one and hands ``dst`` parts
        of ``src``: callers sharing those maps see both. ``read_only_src`` (a chart's defaults):
        ``src`` is left as it is and what ``dst`` takes is copied; the result in ``dst`` is
        the one a private copy of ``src`` would give.
        """
        if read_only_src:
            src_set = None
        else:
            src_set = {key for key, value in src.items() if value is not None}
            for key, value in dst.items():
                if value is None:
                    src[key] = None
        for key, value in src.items():
            if key not in dst:
                dst[key] = copy_tree(value) if read_only_src else value
                continue
            current = dst[key]
            if current is None:  # src's value reads as the null marked on it
                if not self.merge and (value is not None if src_set is None else key in src_set):
                    del dst[key]
            elif isinstance(value, dict):
                if isinstance(current, dict):
                    self.tables(current, value, _concat(prefix, key), read_only_src=read_only_src)
                else:
                    self.warn("coalesce.go:316", f"warning: cannot overwrite table with non table for "
                                                 f"{_concat(prefix, key)} ({gofmt.format_value(value)})")
            elif isinstance(current, dict) and value is not None:
                self.warn("coalesce.go:319", f"warning: destination for {_concat(prefix, key)} is a table. "
                                             f"Ignoring non-table value ({gofmt.format_value(value)})")
        return dst


# -- import-values (``chartutil.processImportValues``, the merging variant) ------------------
def import_values(chart: model.Chart, values: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The values ``chart`` carries after its ``import-values`` (Helm 3.22 ``install``,
    ``upgrade``, ``template`` and ``lint`` use the merging variant, so ``None`` values stay).

    ``values`` stands for the chart's own values (default ``chart.values``); subcharts'
    values are read as they are, so import bottom-up (see :func:`apply_import_values`).
    Rules: the result is the whole merged tree (chart defaults plus each subchart's values
    under its name); ``exports.<x>`` of a child (the ``- x`` form) or its ``child`` path
    merges into the parent's root or ``parent`` path; the parent's own values win over
    imported ones, and an earlier import wins over a later one. A missing child table is a
    warning, not an error. A chart that declares no dependencies keeps its values as they are.
    """
    own = chart.values if values is None else values
    if not chart.metadata.dependencies:
        return copy_values(own)
    merging = _Coalescer(merge=True)
    merged = merging.chart(chart, {}, "", own_values=own)
    imported: dict[str, Any] = {}
    for dep in chart.metadata.dependencies:
        name = dep.effective_name
        for entry in dep.import_values:
            try:
                table = table_get(merged, f"{name}.{entry.child}", copy=False)
            except ValuesError as exc:
                if isinstance(entry.raw, str):
                    merging.warn("dependencies.go:287", f"Warning: ImportValues missing table: {exc}")
                else:
                    merging.warn("dependencies.go:270", f"Warning: ImportValues missing table from chart {name}: {exc}")
                continue
            imported = merging.tables(imported, _path_to_map(entry.parent, table), "")
    if not imported:  # merged is built of copies only (coalescing copies what it takes)
        return merged
    # Helm's result may hold one child table at several places; a copy keeps them apart.
    return copy_values(merging.tables(copy_values(merged), imported, ""))


def apply_import_values(chart: model.Chart) -> model.Chart:
    """Helm's ``processDependencyImportValues``: a new chart tree whose every chart carries
    its imported values, children first. Templates and files are shared, not copied."""
    subs = [apply_import_values(sub) for sub in chart.dependencies]
    new = records.replace(chart, dependencies=[], parent=chart.parent)
    for sub in subs:
        new.add_dependency(sub)
    new.values = import_values(new)
    return new


def _path_to_map(path: str, data: dict[str, Any]) -> dict[str, Any]:
    """``pathToMap``: ``a.b`` and ``data`` give ``{a: {b: data}}``; ``.`` gives ``data`` itself."""
    if path == ".":
        return data
    for name in reversed(path.split(".")):
        data = {name: data}
    return data


# -- lookups (``Values.Table`` / ``Values.PathValue``) ---------------------------------------
def table_get(values: Mapping[str, Any], path: str, *, copy: bool = True) -> dict[str, Any]:
    """Helm's ``Values.Table``: the map at dotted ``path`` (``tags``, ``sub.exports.data``).

    Raises ValuesError ``"<name>" is not a table`` (Helm's ``ErrNoTable``) naming the first
    part that is missing or not a map. An empty map found is returned as a new ``{}``.
    """
    table: Any = values
    for name in path.split("."):
        found = table.get(name, _MISSING)
        if not isinstance(found, dict):
            raise ValuesError(f"{gostrconv.quote(name)} is not a table")
        table = found
    if not table:
        return {}
    return copy_values(table) if copy else table


def path_get(values: Mapping[str, Any], path: str) -> Any:
    """Helm's ``Values.PathValue`` (dependency ``condition``): the non-map value at ``path``.

    Raises ValuesError ``"<last>" is not a value`` (Helm's ``ErrNoValue``, which names only
    the last part) when anything on the way is missing or the value is a map, and
    ``YAML path cannot be empty`` for ``""``.
    """
    if path == "":
        raise ValuesError("YAML path cannot be empty")
    *parents, key = path.split(".")
    table: Any = values
    if parents:
        try:
            table = table_get(values, ".".join(parents), copy=False)
        except ValuesError:
            raise ValuesError(f"{gostrconv.quote(key)} is not a value") from None
    found = table.get(key, _MISSING)
    if found is _MISSING or isinstance(found, dict):
        raise ValuesError(f"{gostrconv.quote(key)} is not a value")
    return copy_tree(found)


_MISSING = object()


