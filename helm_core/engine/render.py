"""Helm's rendering rules (``engine.Render`` of Helm v3.22) on top of our Go-template engine.

Rules kept, each as Helm has it:

* one template set for the chart and all its subcharts; templates are named by their path
  from the top chart (``mychart/templates/a.yaml``, ``mychart/charts/sub/templates/b.yaml``);
* parse order is Helm's ``sortTemplates``: deeper paths first, then reverse lexical order,
  so a parent's ``define`` replaces a subchart's one of the same name;
* files whose base name starts with ``_`` are parsed, never rendered; a library chart
  contributes only its ``_`` files;
* each template sees ``.Values`` scoped to its chart (``Values.<name>`` of the parent, ``{}``
  when absent or not a map), ``.Chart``, ``.Files``, ``.Release``, ``.Capabilities``,
  ``.Subcharts`` and ``.Template{Name, BasePath}``;
* ``missingkey=zero`` and ``<no value>`` removed from the output; strict mode uses
  ``missingkey=error``;
* ``required``/``fail`` errors read ``execution error at (<file>:<line>:<col>): <msg>``; other
  execution errors keep Go's text; parse errors read ``parse error at (<file>:<line>): <msg>``;
* NOTES.txt files are rendered and returned under their path (the caller keeps the top
  chart's and drops subcharts' ones, as ``helm template``/install do);
* opt-in Jinja2 (``engine/jinja.py``): ``templates/x.yaml.j2`` files, and templates a
  pre-render handler marked ``jinja2`` (``RenderOptions.template_engines``), render with Jinja2
  under their name without ``.j2``; they are not parsed as Go templates, whose ``define``s
  they can still ``include``. A chart with no opt-in renders exactly as before.

Compiled template sets are cached by a digest of every template of the chart tree.
"""
from __future__ import annotations

import posixpath
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping

from helm_core.chart import model
from helm_core.engine import capabilities as caps_mod
from helm_core.engine import engines as engine_rules
from helm_core.engine import files as files_mod
from helm_core.engine import helm_funcs, purity
from helm_core.errors import SourcePos, TemplateError
from helm_core.golib.gojson import copy_tree
from helm_core.gotemplate import budget as budget_mod
from helm_core.gotemplate import environment, runtime
from helm_core.gotemplate.funcs import keypool, regex_results, sprig
from helm_core.support import deepstack, memo, patterns
from helm_core.support.limits import RenderLimitExceeded, RenderLimits
from helm_core.support.records import field, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeAlias

    from helm_core.engine import jinja

#: How many compiled template sets (one per distinct chart tree) are kept.
TEMPLATE_CACHE_SIZE = 32
_WARN_RE = patterns.on_first_use(helm_funcs.WARN_START + r"((?s:.*))" + helm_funcs.WARN_END)


@record(frozen=True)
class RenderOptions:
    """How to render: the release, the cluster's capabilities, strictness and lookup."""

    release: caps_mod.ReleaseInfo = field(default_factory=caps_mod.ReleaseInfo)
    #: ``None`` means Helm's defaults (Kubernetes v1.37.0, DefaultVersionSet).
    capabilities: caps_mod.Capabilities | None = None
    #: ``missingkey=error`` instead of ``zero`` (Helm's ``--strict`` lint).
    strict: bool = False
    #: ``required``/``fail`` do not fail (Helm's lint mode).
    lint_mode: bool = False
    #: Receives lint mode's notes on the ``required``/``fail`` calls it let pass.
    lint_log: Callable[[str], None] | None = None
    #: ``lookup`` provider; default: every lookup returns an empty map (as ``helm template``).
    lookup: helm_funcs.LookupFunc | None = None
    #: Engine per template path (``<chart>/templates/x.yaml``) chosen by a pre-render handler:
    #: ``""`` (Go templates, or Jinja2 for ``.j2`` files) or ``"jinja2"``.
    template_engines: Mapping[str, str] = field(default_factory=dict)
    #: The render's budget: time and output (memory is the process's: the CLI and the
    #: controller's workers set it). ``None``: the budget made active by the caller
    #: (:func:`helm_core.gotemplate.budget.active`, as the CLI does), else no limits.
    limits: RenderLimits | None = None
    #: ``time.monotonic()`` / ``time.process_time()`` when the budget started (the CLI counts
    #: from its start, loading included); ``None``: when the render starts.
    wall_start: float | None = None
    cpu_start: float | None = None
    #: Kept when given: which templates called impure functions, whether shared data changed;
    #: its ``known`` outputs are taken instead of rendering those templates (the CLI's memo).
    ledger: purity.Ledger | None = None
    #: Subcharts' NOTES.txt are kept with the chart's (``--render-subchart-notes``).
    subchart_notes: bool = False


@record
class _Renderable:
    name: str
    #: The file's bytes: digested on every render, decoded only to parse (a cache miss) or for Jinja2.
    raw: bytes
    data: dict[str, Any]
    base_path: str
    #: ``""`` for Go templates, ``engine_rules.JINJA2`` for Jinja2.
    engine: str = ""
    #: The template's file path, as errors name it (differs from ``name`` for ``.j2`` files).
    source: str = ""
    #: The chart's file, whose digest keys its parse trees.
    file: model.File | None = None

    def __init__(self, name: str, raw: bytes, data: dict[str, Any], base_path: str, engine: str = "",
                 source: str = "", file: model.File | None = None) -> None:
        # Written out: every render makes one per template, the record's general __init__ costs ~4x.
        self.name = name
        self.raw = raw
        self.data = data
        self.base_path = base_path
        self.engine = engine
        self.source = source
        self.file = file

    @property
    def text(self) -> str:
        return files_mod.bytes_to_text(self.raw)


def sort_template_names(names: list[str]) -> list[str]:
    """Helm's ``sortTemplates``: more ``/`` first; equal depth in reverse lexical order."""
    return sorted(names, key=lambda n: (n.count("/"), n.encode()), reverse=True)


def _values_table(values: Any, name: str) -> dict[str, Any]:
    """``Values.Table("Values." + name)``: a map at that dotted path, else ``{}``."""
    current = values
    for piece in name.split("."):
        if not isinstance(current, dict) or not isinstance(current.get(piece), dict):
            return {}
        current = current[piece]
    table: dict[str, Any] = current
    return table


def _is_partial(template_name: str) -> bool:
    """A ``_`` file: parsed for its defines, never rendered."""
    return template_name[template_name.rfind("/") + 1:].startswith("_")


def collect_templates(chart: model.Chart, values: dict[str, Any], options: RenderOptions,
                      capabilities: caps_mod.Capabilities) -> dict[str, _Renderable]:
    """Helm's ``allTemplates``: every template with the data it renders with."""
    out: dict[str, _Renderable] = {}
    top = {"Values": values, "Release": options.release.as_map(), "Capabilities": capabilities}
    _collect(chart, top, out, options.template_engines)
    return out


def _collect(chart: model.Chart, parent: dict[str, Any], out: dict[str, _Renderable],
             engines: Mapping[str, str]) -> dict[str, Any]:
    subcharts: dict[str, Any] = {}
    data: dict[str, Any] = {
        "Chart": caps_mod.ChartInfo(chart.metadata, is_root=chart.is_root()),
        "Files": files_mod.Files.from_chart_files(chart.files),
        "Release": parent["Release"],
        "Capabilities": parent["Capabilities"],
        "Values": parent["Values"] if chart.is_root() else _values_table(parent["Values"], chart.name),
        "Subcharts": subcharts,
    }
    for sub in chart.dependencies:
        subcharts[sub.name] = _collect(sub, data, out, engines)
    prefix = chart.chart_path()
    # posixpath.join(prefix, name) for every template, its costly part done once per chart.
    under = posixpath.join(prefix, "")
    base_path = posixpath.join(prefix, "templates")
    library = chart.metadata.type.lower() == model.TYPE_LIBRARY
    for tmpl in chart.templates:
        if library and not _is_partial(tmpl.name):
            continue  # a library chart contributes only its partials
        source = tmpl.name if tmpl.name[:1] == "/" else under + tmpl.name
        engine = _engine_of(source, engines.get(source, "")) if engines or engine_rules.is_jinja_file(source) else ""
        name = engine_rules.document_name(source) if engine else source
        if name in out:
            raise TemplateError(f"jinja2 error at ({source}): {name} is also rendered by another template",
                                SourcePos(source))
        out[name] = _Renderable(name, tmpl.data, data, base_path, engine, source, tmpl)
    return data


def _engine_of(source: str, chosen: str) -> str:
    """``engine_rules.JINJA2`` for ``.j2`` files and templates a handler marked so; else ``""``."""
    if chosen not in ("", engine_rules.JINJA2):
        raise TemplateError(f"unknown template engine {chosen!r} for {source} (known: {engine_rules.JINJA2})",
                            SourcePos(source))
    return engine_rules.JINJA2 if chosen or engine_rules.is_jinja_file(source) else ""


#: What a compiled template set is kept under: whether it is strict, then every template's
#: name, text and engine, in name order.
_SetKey: TypeAlias = "tuple[bool, tuple[tuple[str, bytes, str], ...]]"


def _set_key(templates: dict[str, _Renderable], strict: bool) -> _SetKey:
    """The compiled-set cache key: the texts themselves (surrogate escapes and all), not a
    digest of them. A dict lookup hashes them with the interpreter's string hash and, on a
    hit, compares them: exact, and a warm render of redis's 320 KB of templates pays ~0.1 ms
    where a cryptographic digest took ~0.4 ms."""
    # (bytes() of bytes is the object itself: a copy only of a caller's bytearray)
    return strict, tuple((name, bytes(templates[name].raw), templates[name].engine) for name in sorted(templates))


def cleanup_parse_error(filename: str, message: str) -> str:
    """Helm's ``cleanupParseError``: ``parse error at (<location>): <last part>``."""
    tokens = message.split(": ")
    if len(tokens) == 1:
        return f"parse error in ({filename}): {message}"
    return f"parse error at ({tokens[1]}): {tokens[-1]}"


def cleanup_exec_error(filename: str, message: str) -> str:
    """Helm's ``cleanupExecError``: required/fail messages get ``execution error at (...)``."""
    tokens = message.split(": ", 2)
    if len(tokens) != 3:
        return f"execution error in ({filename}): {message}"
    match = _WARN_RE().search(tokens[2])
    if match:
        return f"execution error at ({tokens[1]}): {match.group(1)}"
    return message


def _position(location: str) -> SourcePos:
    parts = location.rsplit(":", 2)
    nums: list[int] = []
    while len(parts) > 1 and parts[-1].isdigit():
        nums.insert(0, int(parts.pop()))
    return SourcePos(":".join(parts), *nums[:2])


def _exec_position(message: str) -> SourcePos | None:
    """Where Go's ``template: <file>:<line>:<col>: ...`` text says the error is."""
    tokens = message.split(": ", 2)
    if len(tokens) == 3 and tokens[0] == "template":
        return _position(tokens[1])
    return None


class _Compiled:
    """A parsed template set with its render-bound state (reset on every render)."""

    def __init__(self, templates: dict[str, _Renderable], order: list[str], *, strict: bool) -> None:
        self.lock = threading.Lock()
        self.state = helm_funcs.RenderState(tset=None, exec_errors=(TemplateError,))
        funcs = helm_funcs.helm_func_map(sprig.SPRIG_FUNCS)
        funcs.update(helm_funcs.bound_funcs(self.state))
        self.env = environment.Environment(purity.tracked(funcs), missingkey="error" if strict else "zero",
                                           memo=memo.active())
        self.tset = self.env.new_set(helm_funcs.ROOT_TEMPLATE_NAME)
        self.jinja: dict[bool, jinja.JinjaSet] = {}
        #: Renders of this set so far (see GENERATE_CODE_AT).
        self.renders = 0
        #: RSA keys its last render made, by size: the next render has them generated ahead, in
        #: parallel (a chart that makes certificates spends most of its render on primes).
        self.rsa_keys: dict[int, int] = {}
        for name in order:
            item = templates[name]
            if item.engine:
                continue
            try:
                self.tset.parse(name, item.text, source_digest=item.file.digest() if item.file is not None else None)
            except TemplateError as exc:
                message = cleanup_parse_error(name, str(exc))
                location = message[len("parse error at ("):].split(")", 1)[0]
                raise TemplateError(message, _position(location)) from None


#: The render of a set (a chart's templates) from which the trees that ran are compiled to Python
#: code (``gotemplate/codegen.py``, each tree once). Generating costs what ~200 warm renders of
#: the chart save (docs/architecture.md), so it is done once the set has rendered that often: a
#: chart rendered N times then costs at most twice what the better of never and always would
#: have (the rent-or-buy rule). The controller's workers reach it for charts many requests
#: share; a CLI run renders a chart once (twice: ``lint``) and never does.
GENERATE_CODE_AT = 200

_CACHE: OrderedDict[_SetKey, _Compiled] = OrderedDict()
_CACHE_LOCK = threading.Lock()


def _compiled(templates: dict[str, _Renderable], order: list[str], strict: bool) -> _Compiled:
    key = _set_key(templates, strict)
    with _CACHE_LOCK:
        hit = _CACHE.get(key)
        if hit is not None:
            _CACHE.move_to_end(key)
            return hit
    compiled = _Compiled(templates, order, strict=strict)
    with _CACHE_LOCK:
        _CACHE[key] = compiled
        while len(_CACHE) > TEMPLATE_CACHE_SIZE:
            _CACHE.popitem(last=False)
    return compiled


def render(chart: model.Chart, values: dict[str, Any], *,
           options: RenderOptions = RenderOptions()) -> dict[str, str]:
    """Render every non-partial template of ``chart`` and its subcharts.

    ``values`` are the final coalesced values (``.Values`` of the top chart). Returns
    {template path: rendered text}, NOTES.txt files included. Raises :class:`TemplateError`
    with Helm's message on a parse or execution error.
    """
    return deepstack.run(lambda: _render(chart, values, options), name="helm-render")


def _render(chart: model.Chart, values: dict[str, Any], options: RenderOptions) -> dict[str, str]:
    capabilities = options.capabilities or caps_mod.make_capabilities()
    # Templates may change values (Sprig's set/unset); they share one copy, never the caller's.
    templates = collect_templates(chart, copy_tree(values), options, capabilities)
    order = sort_template_names(list(templates))
    compiled = _compiled(templates, order, options.strict)
    try:
        if options.ledger is None:
            return _render_all(chart, compiled, templates, order, options)
        roots = list({id(item.data): item.data for item in templates.values()}.values())
        with purity.watching(roots):
            return _render_all(chart, compiled, templates, order, options)
    finally:
        # Parse trees go to the disk memo once they ran: only what ran is pickled.
        compiled.env.save_parsed()
        regex_results.save()


def _render_all(chart: model.Chart, compiled: _Compiled, templates: dict[str, _Renderable], order: list[str],
                options: RenderOptions) -> dict[str, str]:
    jinja_strict = options.strict or options.lint_mode
    if options.limits is not None:
        budget = budget_mod.Budget(options.limits, wall_start=options.wall_start, cpu_start=options.cpu_start)
    else:  # the budget the caller made active (the CLI's), if any, counting from now
        budget = budget_mod.current()
        if budget is not budget_mod.UNLIMITED:
            budget.restart()
    ledger = options.ledger
    writes_before = purity.shared_writes()
    with compiled.lock:  # outside the render's budget: generating code is not the chart's work
        compiled.renders += 1
        if compiled.renders >= GENERATE_CODE_AT:
            compiled.tset.generate_code()
    with compiled.lock, budget_mod.active(budget), budget.timed():
        keypool.prefetch(compiled.rsa_keys)
        keys_before = keypool.made()
        state = compiled.state
        state.lint_mode = options.lint_mode
        state.lint_log = options.lint_log
        state.lookup = options.lookup or helm_funcs._empty_lookup
        rendered: dict[str, str] = {}
        for name in order:
            if _is_partial(name):
                continue
            if ledger is not None and name in ledger.known:
                if purity.shared_writes() != writes_before:
                    ledger.stale = True  # kept when no template before it changed shared data
                rendered[name] = text = ledger.known[name]
                budget.add_written(text)
                continue
            item = templates[name]
            item.data["Template"] = {"Name": name, "BasePath": item.base_path}
            state.tset = compiled.tset
            state.included = {}
            state.nesting = 0
            impure_calls = purity.calls()
            where = f"chart {chart.name}: template {name}"
            budget_mod.working_on(where)
            try:
                text = _render_one(compiled, state, item, jinja_strict)
                budget.add_written(text)
            except RenderLimitExceeded as exc:
                raise RenderLimitExceeded(f"{where}: {exc}", limit=exc.limit) from None
            if ledger is not None:
                if item.engine or purity.calls() != impure_calls:
                    ledger.impure.add(name)  # Jinja2's functions are not counted: never reused
                if ledger.first_write is None and purity.shared_writes() != writes_before:
                    ledger.first_write = name
            rendered[name] = text
        if ledger is not None:
            ledger.outputs = dict(rendered)  # the caller takes NOTES.txt out of its dict
        compiled.rsa_keys = keypool.made_since(keys_before)
        return rendered


def _render_one(compiled: _Compiled, state: helm_funcs.RenderState, item: _Renderable, jinja_strict: bool) -> str:
    """One template's output, errors worded as Helm words them."""
    name = item.name
    if item.engine:
        jset = compiled.jinja.get(jinja_strict)
        if jset is None:
            from helm_core.engine import jinja  # only charts that opt in pay for Jinja2

            jset = compiled.jinja[jinja_strict] = jinja.JinjaSet(state, strict=jinja_strict)
        return jset.render(item.source, item.text, item.data)
    try:
        text = compiled.tset.execute(name, item.data)
    except runtime.NestingTooDeep as exc:
        raise TemplateError(f"rendering template failed: {name}: {exc}") from None
    except TemplateError as exc:
        message = cleanup_exec_error(name, str(exc))
        raise TemplateError(message, _exec_position(str(exc)) or exc.pos) from None
    except RecursionError:
        raise TemplateError(f"rendering template failed: {name}: template nesting too deep") from None
    return text.replace("<no value>", "")
