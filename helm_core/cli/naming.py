"""Release names as helm's ``install``/``template`` take them: ``NAME CHART``, or ``CHART`` with
``--name-template``, ``--generate-name`` or (template) a default name, checked as helm checks
them. Apart from the dispatcher so that the release commands use it without an import cycle.
"""
from __future__ import annotations

import argparse
import os

from helm_core.errors import HelmError


def add_name_flags(p: argparse.ArgumentParser) -> None:
    """``--generate-name`` and ``--name-template`` (install and template)."""
    p.add_argument("-g", "--generate-name", action="store_true",
                   help="generate the name (and omit the NAME parameter)")
    p.add_argument("--name-template", default="", help="specify template used to name the release")


def release_name_and_chart(args: argparse.Namespace, *, default: str = "") -> tuple[str, str]:
    """Helm's ``NameAndChart``: ``NAME CHART``, or ``CHART`` with ``--name-template``,
    ``--generate-name`` or (template only) a default name; names are checked as helm checks them."""
    from helm_core.storage import names as release_names

    positional = list(args.args)
    generate = getattr(args, "generate_name", False)
    name_template = getattr(args, "name_template", "") or ""
    if len(positional) > 2:
        raise HelmError(f"expected at most two arguments, unexpected arguments: {', '.join(positional[2:])}")
    if len(positional) == 2:
        if generate:
            raise HelmError("cannot set --generate-name and also specify a name")
        if name_template:
            raise HelmError("cannot set --name-template and also specify a name")
        name, chart = positional
    elif name_template:
        name, chart = _name_from_template(name_template), positional[0]
    elif default:  # helm template names the release before --generate-name is looked at
        name, chart = default, positional[0]
    elif generate:
        import time
        chart = positional[0]
        base = os.path.basename(chart.rstrip("/")) or "chart"
        base = "chart" if base == "." else base.split(".", 1)[0]
        name = f"{base}-{int(time.time())}"
    else:
        raise HelmError("must either provide a name or specify --generate-name")
    release_names.check_name(name)
    return name, chart


def _name_from_template(text: str) -> str:
    """``--name-template``: a Go template rendered with the chart functions and no data."""
    from helm_core.gotemplate import Environment
    from helm_core.gotemplate.funcs import sprig

    tset = Environment(sprig.SPRIG_FUNCS).new_set("name-template")
    tset.parse("name-template", text)
    return tset.execute("name-template", None)
