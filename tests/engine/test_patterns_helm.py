"""One chart, every place it gives a pattern — .Files.Glob, .helmignore, values-schema patterns,
Sprig — rendered by helm-core and by helm (HELM_BIN): the same output, and no hang on patterns
that are exponential for a backtracking engine."""
from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from helm_core.errors import SchemaError
from tests.engine import helmbin
from tests.engine.test_render import chart_yaml, render_dir, write_chart

pytestmark = pytest.mark.conformance

LONG = "a" * 200  # a file name component may hold 255 bytes
FILES = ["a.txt", "conf/a.yaml", "conf/sub/b.yaml", "c,d", "x}", "a-b", "]", "é.txt", f"files/{LONG}",
         f"files/{LONG}!", "{a}", "ab", "aaab", "aaa/b", "keep/x.tgz", "keep/y.txt"]
GLOBS = ["*", "**", "conf/*", "conf/**", "*.txt", "[a-c].txt", "[a-z0-9]*", "[abc]*", "{a,conf}*", "{a,conf/**",
         "c,d", "x}", "a\\-b", "\\]", "a?b", "{a*,b}.txt", "[!!]*", "files/*a*a*a*a*a*a*a*a*a*a*a*a!",
         "files/**a**a**a**a**a**a**a**a**a**a**a**a!"]
#: Go's filepath.Match: ``*a[^x]*b`` does not match ``aaa/b`` (it is not a regex); the last rule
#: is O(n^10) for a backtracking engine on the long name.
HELMIGNORE = "*a[^x]*b\n*.tgz\nfiles/*a*a*a*a*a*a*a*a*a*a*b\n"
SCHEMA = {
    "type": "object",
    "properties": {
        "host": {"type": "string", "pattern": r"^[\w-\.]+$"},
        "name": {"type": "string", "pattern": "^(a+)+$"},
    },
    "patternProperties": {"^(a|aa)*c$": {"type": "integer"}},
}


def _chart(root: Path) -> Path:
    files = {"Chart.yaml": chart_yaml("e1"), ".helmignore": HELMIGNORE,
             "values.schema.json": json.dumps(SCHEMA), "values.yaml": "host: web-1.example\nname: aaaa\n"}
    files.update({f"data/{name}": name for name in FILES})
    lines = []
    for i, glob in enumerate(GLOBS):
        quoted = json.dumps("data/" + glob)
        lines.append(f'g{i}: {{{{ range $p, $_ := .Files.Glob {quoted} }}}}{{{{ $p | b64enc }}}},{{{{ end }}}}')
    lines.append('all: {{ range $p, $_ := .Files.Glob "**" }}{{ $p | b64enc }},{{ end }}')
    lines.append('sprig: {{ list (regexMatch "^(a+)+$" (repeat 41 "a" | printf "%sb")) '
                 '(regexFindAll "[\\\\w-\\\\.]+" "a-b.c d" -1) | toJson | b64enc }}')
    files["templates/cm.yaml"] = "\n".join(lines) + "\n"
    return write_chart(root / "e1", files)


def _decoded(text: str) -> dict[str, object]:
    import yaml

    doc = yaml.safe_load(text.split("# Source: e1/templates/cm.yaml\n", 1)[-1])
    return {key: sorted(base64.b64decode(p).decode() for p in (value or "").split(",") if p)
            if key != "sprig" else base64.b64decode(value).decode() for key, value in doc.items()}


@pytest.mark.timeout(300)
def test_glob_helmignore_schema_and_sprig_as_helm(tmp_path: Path):
    helmbin.require_helm()
    root = _chart(tmp_path)
    ours = _decoded(render_dir(root)["e1/templates/cm.yaml"])
    code, out, err = helmbin.helm_template_result(root)
    assert code == 0, err
    assert ours == _decoded(out)
    assert "data/aaab" not in ours["all"] and "data/aaa/b" in ours["all"]  # the .helmignore rules applied


@pytest.mark.timeout(300)
@pytest.mark.parametrize("values, fails", [
    ({"name": "a" * 41 + "b"}, True),
    ({"host": "a b"}, True),
    ({"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab": "x"}, False),  # no pattern property matches
    ({"aac": "x"}, True),
    ({"host": "ok-1.x", "name": "a" * 41}, False),
])
def test_schema_patterns_pass_and_fail_as_helm(tmp_path: Path, values: dict[str, object], fails: bool):
    helmbin.require_helm()
    root = _chart(tmp_path)
    (tmp_path / "override.yaml").write_text(json.dumps(values))
    code, _, err = helmbin.helm_template_result(root, "-f", str(tmp_path / "override.yaml"))
    assert (code != 0) == fails, err
    if fails:
        assert "values don't meet the specifications of the schema(s)" in err
        with pytest.raises(SchemaError):
            render_dir(root, values)
    else:
        render_dir(root, values)
