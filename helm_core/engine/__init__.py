"""Helm's render layer on the Go-template engine.

Modules: :mod:`render` (``render(chart, values, options=...)``, Helm's engine.Render rules),
:mod:`helm_funcs` (Helm's function map additions), :mod:`files` (``.Files``),
:mod:`capabilities` (``.Capabilities``, ``.Chart``, ``.Release``), :mod:`jinja` (the opt-in
Jinja2 engine for ``.j2`` templates, sandboxed).
"""
