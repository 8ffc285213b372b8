"""Render many template expressions with the real ``helm template`` in one run.

Each expression's value is printed through ``toString | b64enc`` into a ConfigMap
so any text survives YAML; callers compare it with our function's ``strval``.
Tests using this skip visibly when no helm binary is found.
"""
from __future__ import annotations

import base64
import tempfile
from pathlib import Path
from typing import Any

import yaml

from tests.engine import helmbin

CHART_YAML = "apiVersion: v2\nname: sprigcheck\nversion: 0.1.0\n"


def render_many(exprs: list[str], values: dict[str, Any] | None = None) -> list[str]:
    """The text of each ``{{ EXPR }}`` as Helm renders it (errors fail the test)."""
    helmbin.require_helm()
    lines = ["apiVersion: v1", "kind: ConfigMap", "metadata:", "  name: sprigcheck", "data:"]
    for i, expr in enumerate(exprs):
        lines.append(f"  c{i}: {{{{ ({expr}) | toString | b64enc | quote }}}}")
    with tempfile.TemporaryDirectory() as tmp:
        chart = Path(tmp) / "sprigcheck"
        (chart / "templates").mkdir(parents=True)
        (chart / "Chart.yaml").write_text(CHART_YAML)
        (chart / "values.yaml").write_text(yaml.safe_dump(values or {}))
        (chart / "templates" / "cm.yaml").write_text("\n".join(lines) + "\n")
        code, out, err = helmbin.helm_template_result(chart)
    if code != 0:
        raise AssertionError(f"helm template failed: {err}")
    doc = yaml.safe_load(out.split("---", 1)[1])
    return [base64.b64decode(doc["data"][f"c{i}"]).decode("utf-8", "surrogateescape") for i in range(len(exprs))]


def render_error(expr: str) -> str:
    """Helm's error text for a template whose only action is ``{{ EXPR }}``."""
    helmbin.require_helm()
    with tempfile.TemporaryDirectory() as tmp:
        chart = Path(tmp) / "sprigcheck"
        (chart / "templates").mkdir(parents=True)
        (chart / "Chart.yaml").write_text(CHART_YAML)
        (chart / "templates" / "cm.yaml").write_text(f"x: {{{{ {expr} }}}}\n")
        code, _, err = helmbin.helm_template_result(chart)
    assert code != 0, f"helm accepted {expr!r}"
    return err.strip()
