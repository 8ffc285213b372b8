"""engine.render: Helm's rendering rules, checked against texts helm prints (and live helm)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from helm_core.golib import goyaml
from helm_core.chart import loader, prepare
from helm_core.engine import capabilities, render
from helm_core.errors import SourcePos, TemplateError
from tests.engine import helmbin


def write_chart(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def chart_yaml(name: str, **extra: str) -> str:
    lines = [f"apiVersion: v2", f"name: {name}", "version: 0.1.0"] + [f"{k}: {v}" for k, v in extra.items()]
    return "\n".join(lines) + "\n"


def render_dir(root: Path, user_values: dict | None = None, **options) -> dict[str, str]:
    prepared = prepare.prepare_chart(loader.load(root), user_values or {})
    return render.render(prepared.chart, prepared.values, options=render.RenderOptions(**options))


def render_one(tmp_path: Path, template: str, **options) -> str:
    root = write_chart(tmp_path / "e1", {"Chart.yaml": chart_yaml("e1"), "templates/t.yaml": template})
    return render_dir(root, **options)["e1/templates/t.yaml"]


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ('{{ required "need x" .Values.x }}', "execution error at (e1/templates/t.yaml:1:3): need x"),
        ('{{ fail "boom" }}', "execution error at (e1/templates/t.yaml:1:3): boom"),
        ('{{ define "q" }}{{ fail "inner" }}{{ end }}x: {{ include "q" . | indent 2 }}',
         "execution error at (e1/templates/t.yaml:1:49): inner"),
        ('{{ tpl "{{ required \\"need x\\" .Values.x }}" . }}', "execution error at (e1/templates/t.yaml:1:3): need x"),
        ("{{ .Values.x.y\n", "parse error at (e1/templates/t.yaml:2): unclosed action started at e1/templates/t.yaml:1"),
        ("{{ .Values.x.y", "parse error at (e1/templates/t.yaml:1): unclosed action"),
        ('{{ env "HOME" }}', 'parse error at (e1/templates/t.yaml:1): function "env" not defined'),
        ('{{ template "nope" . }}',
         'template: e1/templates/t.yaml:1:12: executing "e1/templates/t.yaml" at <{{template "nope" .}}>: '
         'template "nope" not defined'),
        ('{{ include "nope" . }}',
         'template: e1/templates/t.yaml:1:3: executing "e1/templates/t.yaml" at <include "nope" .>: '
         'error calling include: template: no template "nope" associated with template "gotpl"'),
        ('{{ tpl "{{ .Values.x.y }}" . }}',
         'template: e1/templates/t.yaml:1:3: executing "e1/templates/t.yaml" at <tpl "{{ .Values.x.y }}" .>: '
         'error calling tpl: error during tpl function execution for "{{ .Values.x.y }}": template: gotpl:1:10: '
         'executing "gotpl" at <.Values.x.y>: nil pointer evaluating interface {}.y'),
        ('{{ tpl "{{ if }}" . }}',
         'template: e1/templates/t.yaml:1:3: executing "e1/templates/t.yaml" at <tpl "{{ if }}" .>: '
         'error calling tpl: cannot parse template "{{ if }}": template: gotpl:1: missing value for if'),
        ('{{ tpl "{{ define \\"zz\\" }}Z{{ end }}{{ include \\"zz\\" . }}" . }}{{ include "zz" . }}',
         'template: e1/templates/t.yaml:1:68: executing "e1/templates/t.yaml" at <include "zz" .>: '
         'error calling include: template: no template "zz" associated with template "gotpl"'),
    ],
    ids=["required", "fail", "fail-in-include", "required-in-tpl", "parse", "parse-at-eof", "env-removed", "template-undefined",
         "include-undefined", "tpl-exec", "tpl-parse", "tpl-defines-stay-local"],
)
def test_errors_read_as_helm_prints_them(tmp_path, template, message):
    with pytest.raises(TemplateError) as info:
        render_one(tmp_path, template)
    assert str(info.value) == message


def test_include_recursion_stops_at_helm_limit(tmp_path):
    with pytest.raises(TemplateError) as info:
        render_one(tmp_path, '{{ define "r" }}{{ include "r" . }}{{ end }}{{ include "r" . }}')
    message = str(info.value)
    assert message.endswith("error calling include: rendering template has a nested reference name: r: "
                            "unable to execute template")
    assert message.count("error calling include") == 1002


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("x: {{ .Values.missing }}", "x: "),
        ('{{ printf "%v" .Values.missing }}', "<nil>"),
        ("{{ .Template.Name }} {{ .Template.BasePath }}", "e1/templates/t.yaml e1/templates"),
        ("{{ .Release.Name }} {{ .Release.Namespace }} {{ .Release.IsInstall }} {{ .Release.Revision }} "
         "{{ .Release.Service }}", "release-name default true 1 Helm"),
        ("{{ .Chart.Name }} {{ .Chart.IsRoot }} {{ .Chart.Version }}", "e1 true 0.1.0"),
        ("{{ .Capabilities.KubeVersion }} {{ .Capabilities.APIVersions.Has \"policy/v1\" }}", "v1.37.0 true"),
        ('{{ has "apps/v1" .Capabilities.APIVersions }}', "true"),
        ('{{ lookup "v1" "Secret" "ns" "n" | toJson }}', "{}"),
        ('{{ tpl "{{ .Values.a }}-{{ .Values.missing }}" . }}', "-"),
    ],
    ids=["no-value-stripped", "printf-nil", "template", "release", "chart", "capabilities",
         "sprig-has-on-versionset", "lookup-default", "tpl"],
)
def test_render_data_is_helms(tmp_path, template, expected):
    assert render_one(tmp_path, template) == expected


@pytest.mark.parametrize(
    ("outer", "inner", "expected"),
    [
        ("A{{ tpl .Values.inner . }}B", "", "AB"),
        ("A{{ tpl .Values.inner . }}B", "  {{/* c */}} ", "A   B"),
        # Once re-ran the outer text until include's depth limit ("nested reference name").
        ('{{ include "e1.x" . }}{{ tpl .Values.inner . }}.', "{{- /* only a comment */ -}}", "x."),
        ('A{{ tpl .Values.inner . }}B', '{{ define "e1.y" }}Y{{ end }}', "AB"),
    ],
    ids=["empty", "blank-and-comment", "include-then-empty", "only-a-define"],
)
def test_tpl_of_empty_text_inside_tpl_prints_that_text(tmp_path, outer, inner, expected):
    # helm 3.22: an empty tpl body does not replace the enclosing tpl's "gotpl", yet is what runs.
    root = write_chart(tmp_path / "e1", {
        "Chart.yaml": chart_yaml("e1"),
        "templates/_x.tpl": '{{ define "e1.x" }}x{{ end }}',
        "templates/t.yaml": "{{ tpl .Values.outer . }}",
    })
    out = render_dir(root, {"outer": outer, "inner": inner})
    assert out["e1/templates/t.yaml"] == expected


def test_strict_mode_errors_on_missing_keys(tmp_path):
    with pytest.raises(TemplateError) as info:
        render_one(tmp_path, "{{ .Values.missing }}", strict=True)
    assert str(info.value) == ('template: e1/templates/t.yaml:1:10: executing "e1/templates/t.yaml" at '
                               '<.Values.missing>: map has no entry for key "missing"')


def test_lint_mode_lets_required_pass(tmp_path):
    assert render_one(tmp_path, 'a{{ required "x" .Values.x }}b', lint_mode=True) == "ab"


def test_lookup_is_pluggable(tmp_path):
    def lookup(api_version, kind, namespace, name):
        return {"kind": kind, "metadata": {"name": name}}

    out = render_one(tmp_path, '{{ (lookup "v1" "Secret" "ns" "s1").metadata.name }}', lookup=lookup)
    assert out == "s1"


def test_custom_capabilities(tmp_path):
    caps = capabilities.make_capabilities(kube_version="1.29", extra_api_versions=["apps/v1/Deployment"])
    out = render_one(tmp_path, '{{ .Capabilities.KubeVersion.Minor }} {{ .Capabilities.APIVersions.Has "apps/v1/Deployment" }}',
                     capabilities=caps)
    assert out == "29 true"


def test_render_does_not_mutate_values(tmp_path):
    root = write_chart(tmp_path / "e1", {"Chart.yaml": chart_yaml("e1"), "values.yaml": "a: {b: 1}\n",
                                         "templates/t.yaml": '{{ $_ := set .Values.a "c" 2 }}{{ .Values.a | toJson }}'})
    prepared = prepare.prepare_chart(loader.load(root), {})
    before = goyaml.dump(prepared.values)
    out = render.render(prepared.chart, prepared.values)
    assert out["e1/templates/t.yaml"] == '{"b":1,"c":2}'
    assert goyaml.dump(prepared.values) == before


FAMILY = {
    "Chart.yaml": chart_yaml("parent") + "dependencies:\n- name: sub\n  version: 0.1.0\n- name: lib\n  version: 0.1.0\n",
    "values.yaml": "who: parent\nsub:\n  who: sub-from-parent\nglobal:\n  g: 1\n",
    "templates/_helpers.tpl": '{{ define "shared" }}parent-def{{ end }}',
    "templates/a.yaml": ('parent: {{ include "shared" . }} {{ .Values.who }} {{ .Subcharts.sub.Values.who }} '
                         '{{ .Subcharts.sub.Chart.Name }} {{ include "lib.hello" . }}\n'),
    "templates/NOTES.txt": "notes for {{ .Release.Name }}",
    "charts/sub/Chart.yaml": chart_yaml("sub"),
    "charts/sub/values.yaml": "who: sub\nown: 1\n",
    "charts/sub/templates/_helpers.tpl": '{{ define "shared" }}sub-def{{ end }}{{ define "subonly" }}S{{ end }}',
    "charts/sub/templates/b.yaml": ('sub: {{ include "shared" . }} {{ include "subonly" . }} {{ .Values.who }} '
                                    '{{ .Values.own }} {{ .Values.global.g }} {{ .Chart.IsRoot }} {{ .Template.BasePath }}\n'),
    "charts/sub/templates/NOTES.txt": "sub notes",
    "charts/lib/Chart.yaml": chart_yaml("lib", type="library"),
    "charts/lib/templates/_lib.tpl": '{{ define "lib.hello" }}hello-from-lib{{ end }}',
    "charts/lib/templates/ignored.yaml": "kind: ShouldNotRender\n",
}


def test_family_scoping_define_order_library_and_notes(tmp_path):
    out = render_dir(write_chart(tmp_path / "parent", FAMILY))
    assert out == {
        "parent/templates/a.yaml": "parent: parent-def parent sub-from-parent sub hello-from-lib\n",
        "parent/templates/NOTES.txt": "notes for release-name",
        "parent/charts/sub/templates/b.yaml": "sub: parent-def S sub-from-parent 1 1 false parent/charts/sub/templates\n",
        "parent/charts/sub/templates/NOTES.txt": "sub notes",
    }


def test_family_matches_live_helm(tmp_path):
    root = write_chart(tmp_path / "parent", FAMILY)
    ours = render_dir(root)
    helm = helmbin.helm_template(root)
    for path in ("parent/templates/a.yaml", "parent/charts/sub/templates/b.yaml"):
        assert f"# Source: {path}\n{ours[path].strip()}\n" in helm


def test_compiled_sets_are_reused(tmp_path):
    root = write_chart(tmp_path / "parent", FAMILY)
    render_dir(root)
    size = len(render._CACHE)
    render_dir(root, release=capabilities.ReleaseInfo(name="other"))
    assert len(render._CACHE) == size
    assert render_dir(root, release=capabilities.ReleaseInfo(name="other"))["parent/templates/NOTES.txt"] == "notes for other"


def test_compiled_sets_are_kept_by_every_name_text_and_mode(tmp_path, monkeypatch):
    """A set compiled once is found again only for the same names, texts and strictness: a
    text changed by a byte, a file renamed or a strict render each compile their own."""
    monkeypatch.setattr(render, "_CACHE", type(render._CACHE)())  # none evicted meanwhile
    files = {"Chart.yaml": chart_yaml("keys"), "templates/_h.tpl": '{{ define "h" }}one{{ end }}',
             "templates/a.yaml": 'a: {{ include "h" . }}'}
    root = write_chart(tmp_path / "keys", files)
    assert render_dir(root)["keys/templates/a.yaml"] == "a: one"
    size = len(render._CACHE)
    assert size == 1
    assert render_dir(root)["keys/templates/a.yaml"] == "a: one" and len(render._CACHE) == size
    (root / "templates/_h.tpl").write_text('{{ define "h" }}onf{{ end }}')  # same length, one byte
    assert render_dir(root)["keys/templates/a.yaml"] == "a: onf" and len(render._CACHE) == size + 1
    (root / "templates/a.yaml").rename(root / "templates/b.yaml")
    assert render_dir(root)["keys/templates/b.yaml"] == "a: onf" and len(render._CACHE) == size + 2
    assert render_dir(root, strict=True)["keys/templates/b.yaml"] == "a: onf" and len(render._CACHE) == size + 3


@pytest.mark.parametrize(
    ("names", "expected"),
    [(["c/templates/a.yaml", "c/templates/_h.tpl", "c/charts/s/templates/x.yaml", "c/templates/b/c.yaml"],
      ["c/charts/s/templates/x.yaml", "c/templates/b/c.yaml", "c/templates/a.yaml", "c/templates/_h.tpl"])],
    ids=["deeper-first-then-reverse-lexical"],
)
def test_sort_template_names_is_helms_parse_order(names, expected):
    assert render.sort_template_names(names) == expected


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("template: a/t.yaml:3:4: executing \"a/t.yaml\" at <fail \"x\">: error calling fail: HELM_ERR_STARTx: yHELM_ERR_END",
         "execution error at (a/t.yaml:3:4): x: y"),
        ("template: a/t.yaml:3:4: executing \"a/t.yaml\" at <.X>: boom", "template: a/t.yaml:3:4: executing \"a/t.yaml\" at <.X>: boom"),
        ("odd", "execution error in (a/t.yaml): odd"),
    ],
    ids=["warn", "plain-exec", "non-template"],
)
def test_cleanup_exec_error(message, expected):
    assert render.cleanup_exec_error("a/t.yaml", message) == expected


FILES_TEMPLATE = """a: {{ .Files.Get "conf/a.yaml" | quote }}
b: {{ range $p, $_ := .Files.Glob "conf/*" }}{{ $p }},{{ end }}
c: {{ .Files.Lines "conf/b.txt" | toJson }}
d: {{ (.Files.Glob "conf/*").AsConfig | quote }}
e: {{ .Files.Glob "conf/*" | len }}
f: {{ range .Capabilities.APIVersions }}{{ if eq . "v1" }}{{ . }}{{ end }}{{ end }}
"""


def test_files_methods_and_ranges_through_templates(tmp_path):
    root = write_chart(tmp_path / "c3", {"Chart.yaml": chart_yaml("c3"), "conf/a.yaml": "a: 1\n",
                                         "conf/b.txt": "x\ny\n", "templates/t.yaml": FILES_TEMPLATE})
    expected = ('a: "a: 1\\n"\nb: conf/a.yaml,conf/b.txt,\nc: ["x","y"]\n'
                'd: "a.yaml: |\\n  a: 1\\nb.txt: |\\n  x\\n  y"\ne: 2\nf: v1\n')
    assert render_dir(root)["c3/templates/t.yaml"] == expected
    assert f"# Source: c3/templates/t.yaml\n{expected}" in helmbin.helm_template(root)


def test_errors_carry_the_source_position(tmp_path):
    with pytest.raises(TemplateError) as info:
        render_one(tmp_path, 'a\n  {{ fail "boom" }}')
    assert info.value.pos == SourcePos("e1/templates/t.yaml", 2, 5)
    with pytest.raises(TemplateError) as info:
        render_one(tmp_path, "a\n{{ if }}")
    assert info.value.pos == SourcePos("e1/templates/t.yaml", 2)


def test_concurrent_renders_of_one_chart_stay_separate(tmp_path):
    import concurrent.futures

    root = write_chart(tmp_path / "parent", FAMILY)
    names = [f"rel-{i}" for i in range(8)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        outs = list(pool.map(lambda n: render_dir(root, release=capabilities.ReleaseInfo(name=n)), names))
    assert [o["parent/templates/NOTES.txt"] for o in outs] == [f"notes for {n}" for n in names]


def test_binary_files_keep_their_bytes_through_templates(tmp_path):
    root = tmp_path / "bf"
    write_chart(root, {"Chart.yaml": chart_yaml("bf"), "templates/t.yaml": (
        'a: {{ .Files.Get "blob.bin" | b64enc }}\nb: {{ (.Files.Glob "*.bin").AsSecrets | quote }}\n'
        'c: {{ .Files.Get "blob.bin" | len }}\ne: {{ .Files.Get "blob.bin" | sha256sum }}\n')})
    (root / "blob.bin").write_bytes(b"\xff\xfe\x00\x01abc\xc3\xa9")
    assert render_dir(root)["bf/templates/t.yaml"] == (
        'a: //4AAWFiY8Op\nb: "blob.bin: //4AAWFiY8Op"\nc: 9\n'
        "e: 96bb9e9a9a8ebbefe41f70440790818c2e80ebe73f1a07faf977ad6b4dc26fce\n")


#: Modules the template engine must not import at start-up: decimal (with numbers and contextvars)
#: only serves Sprig's float math, json only fromJson-like functions; each loads on first use.
DEFERRED_MODULES = ("decimal", "json")


def test_importing_the_engine_leaves_deferred_modules_unloaded():
    root = Path(__file__).resolve().parents[2]
    code = ("import sys, helm_core.engine.render\n"
            f"print(' '.join(m for m in {DEFERRED_MODULES!r} if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          cwd=root, env={"PYTHONPATH": str(root)})
    assert proc.stdout.strip() == ""


def test_a_chart_rendered_again_has_its_rsa_keys_generated_ahead(tmp_path, monkeypatch):
    """The keys a render of a template set made are generated ahead, on threads, for its next
    render in the process; every certificate is still new, and a render with other values that
    makes none leaves the keys for a later render rather than generating more."""
    from helm_core.gotemplate.funcs import keypool

    started: list[list[int]] = []
    fill = keypool._fill
    monkeypatch.setattr(keypool, "_fill", lambda lane: started.append(lane) or fill(lane))
    template = ('{{ if .Values.tls }}{{ $ca := genCA "ca" 1 }}'
                '{{ $c := genSignedCert "x" nil nil 1 $ca }}{{ $c.Cert | sha256sum }}{{ end }}')
    root = write_chart(tmp_path / "k1", {"Chart.yaml": chart_yaml("k1"), "templates/t.yaml": template})
    ahead = keypool.made_ahead()
    first = render_dir(root, {"tls": True})["k1/templates/t.yaml"]
    assert started == [] and keypool.made_ahead() == ahead  # nothing known yet
    second = render_dir(root, {"tls": True})["k1/templates/t.yaml"]
    assert sorted(bits for lane in started for bits in lane) == [2048, 2048] and len(started) == 2
    assert keypool.made_ahead() == ahead + 2 and first != second
    render_dir(root, {"tls": False})  # started two more, none asked for
    assert len(started) == 4
    render_dir(root, {"tls": True})  # takes those two: nothing more is started
    assert len(started) == 4 and keypool.made_ahead() == ahead + 4
