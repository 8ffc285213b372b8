"""The helm-core command line: output layout, values flags, and one-line errors."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from helm_core import cli
from tests.chartkit import chart_yaml, package, write_chart

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "charts"


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_template_plain_yaml_chart(capsys):
    code, out, err = run(capsys, "template", str(EXAMPLES / "plain"))
    assert code == 0, err
    # Namespace sorts before ConfigMap (Helm's install order); each document keeps its source.
    assert out == (
        "---\n# Source: plain/templates/objects.yaml\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: plain-ns\n"
        "---\n# Source: plain/templates/objects.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\n"
        "data:\n  a: \"1\"\n"
    )


def test_template_with_name_and_values_flags(capsys, tmp_path):
    values = tmp_path / "v.yaml"
    values.write_text("message: from-file\nimage:\n  tag: '2.0'\n")
    message = tmp_path / "msg.txt"
    message.write_text("from-set-file")
    code, out, err = run(capsys, "template", "demo", str(EXAMPLES / "hello"), "-f", str(values),
                         "--set", "replicaCount=3", "--set-string", "image.tag=3.0",
                         "--set-file", f"message={message}", "--namespace", "prod")
    assert code == 0, err
    docs = {d["kind"]: d for d in yaml.safe_load_all(out)}
    assert docs["Deployment"]["metadata"]["name"] == "demo-hello"
    assert docs["Deployment"]["spec"]["replicas"] == 3
    assert docs["Deployment"]["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:3.0"
    assert docs["ConfigMap"]["data"]["message"] == "from-set-file"


def test_template_show_only_and_missing_template(capsys):
    code, out, _ = run(capsys, "template", str(EXAMPLES / "hello"), "--show-only", "templates/service.yaml")
    assert code == 0 and out.count("# Source:") == 1 and "kind: Service" in out
    code, _, err = run(capsys, "template", str(EXAMPLES / "hello"), "--show-only", "templates/nope.yaml")
    assert code == 1
    assert err == "Error: could not find template templates/nope.yaml in chart\n"


def test_template_reads_archives(capsys, tmp_path):
    tgz = tmp_path / "c.tgz"
    tgz.write_bytes(package({"Chart.yaml": chart_yaml("c"), "templates/a.yaml": "kind: ConfigMap\nmetadata:\n  name: a\n"}, top="c"))
    code, out, _ = run(capsys, "template", str(tgz))
    assert code == 0 and "# Source: c/templates/a.yaml\nkind: ConfigMap" in out


def test_include_crds(capsys, tmp_path):
    root = write_chart(tmp_path, {"Chart.yaml": chart_yaml("c"), "crds/crd.yaml": "kind: CustomResourceDefinition\n",
                                  "templates/a.yaml": "kind: ConfigMap\n"})
    _, out, _ = run(capsys, "template", str(root))
    assert "CustomResourceDefinition" not in out
    _, out, _ = run(capsys, "template", str(root), "--include-crds")
    assert out.startswith("---\n# Source: c/crds/crd.yaml\nkind: CustomResourceDefinition\n")


def test_show_values_raw_and_computed(capsys):
    code, out, _ = run(capsys, "show", "values", str(EXAMPLES / "hello"))
    assert code == 0 and out.startswith("# Default values for the hello example chart.")
    code, out, _ = run(capsys, "show", "values", str(EXAMPLES / "hello"), "--computed", "--set", "replicaCount=5")
    assert code == 0
    assert yaml.safe_load(out)["replicaCount"] == 5


def test_show_chart(capsys):
    code, out, _ = run(capsys, "show", "chart", str(EXAMPLES / "hello"))
    assert code == 0 and "name: hello" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["template", "/nonexistent"], "Error: path \"/nonexistent\" not found\n"),
        (["template", str(EXAMPLES / "hello"), "--set", "a"], "Error: failed parsing --set data: key \"a\" has no value\n"),
        (["template", str(EXAMPLES / "hello"), "-f", "/nonexistent.yaml"], "Error: open /nonexistent.yaml: no such file or directory\n"),
        (["template", str(EXAMPLES / "hello"), "--set-file", "a=/dev/zero"],
         "Error: failed parsing --set-file data: read /dev/zero: more than 104857600 bytes"
         " (a device or a stream without end?)\n"),
        (["template", str(EXAMPLES / "hello"), "--set-file", "a=/"],
         "Error: failed parsing --set-file data: read /: is a directory\n"),
        (["template", str(EXAMPLES / "hello"), "--set", "a[65537]=1"],
         "Error: failed parsing --set data: index of 65537 is greater than maximum supported index of 65536\n"),
    ],
    ids=["missing-chart", "bad-set", "missing-values-file", "set-file-device", "set-file-folder", "set-index"],
)
def test_errors_are_one_line_exit_1(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert (code, out, err) == (1, "", message)


def test_entry_point_prints_no_traceback(tmp_path):
    root = write_chart(tmp_path, {"Chart.yaml": "apiVersion: v2\nname: x\nversion: bad\n"})
    proc = subprocess.run([sys.executable, "-m", "helm_core", "template", str(root)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [
        'Error: validation: chart.metadata.version "bad" is invalid'  # helm's line
    ]


def test_lint_reports_each_chart(capsys, tmp_path):
    bad = write_chart(tmp_path / "bad", {"Chart.yaml": chart_yaml("bad"), "templates/x.yaml": "a: [1\n"})
    code, out, err = run(capsys, "lint", str(EXAMPLES / "hello"), str(bad))
    assert code == 1
    assert "==> Linting" in out and "[ERROR]" in out
    assert err == "Error: 2 chart(s) linted, 1 chart(s) failed\n"  # helm's summary of a failure


def test_template_runs_chart_lua_post_render(capsys):
    code, out, err = run(capsys, "template", "demo", str(EXAMPLES / "lua-postrender"))
    assert code == 0, err
    docs = list(yaml.safe_load_all(out))
    assert [(d["kind"], d["metadata"]["name"]) for d in docs] == [
        ("PodDisruptionBudget", "demo-web"), ("Service", "demo-web"), ("Deployment", "demo-web"),
    ]
    assert all(d["metadata"]["labels"]["team"] == "platform" for d in docs)
    assert "# Source: lua-postrender/ext/lua/chart.lua\n" in out
    assert err == "lua: lua-postrender: dropping ConfigMap/demo-debug (debug is off)\n"


def _asking_chart(tmp_path):
    return write_chart(tmp_path, {
        "Chart.yaml": chart_yaml("asks"),
        "ext/permissions.yaml": "lua: [os]\n",
        "ext/lua/chart.lua": 'events.on("post-template", 0, function(_) print(os.date("!%Y", 0)) end)\n',
        "templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
    })


def test_lua_permission_not_accepted_is_refused_before_any_lua_runs(capsys, tmp_path):
    code, out, err = run(capsys, "template", str(_asking_chart(tmp_path)))
    assert (code, out) == (1, "")
    assert err.startswith("Error: ") and "asks for Lua permissions [os]" in err and err.count("\n") == 1


def test_lua_permission_accepted_by_flag_or_yes(capsys, tmp_path):
    root = _asking_chart(tmp_path)
    code, out, err = run(capsys, "template", str(root), "--accept-perms", "os")
    assert code == 0 and err == "lua: asks: 1970\n" and "kind: ConfigMap" in out
    code, _, err = run(capsys, "template", str(root), "-y")
    assert code == 0 and err == "lua: asks: 1970\n"


def test_binary_file_bytes_print_as_go_quotes_them(tmp_path, capfdbinary):
    root = write_chart(tmp_path, {
        "Chart.yaml": chart_yaml("bin"),
        "files/b.bin": b"\xff\xfe\x00abc",
        "templates/cm.yaml": 'kind: ConfigMap\ndata:\n  raw: {{ .Files.Get "files/b.bin" | quote }}\n',
        "templates/bad.yaml": 'kind: ConfigMap\ndata:\n  bytes: {{ .Files.Get "files/b.bin" }}\n',
    })
    assert cli.main(["template", str(root), "--show-only", "templates/cm.yaml"]) == 1
    err = capfdbinary.readouterr().err
    assert err == (b"Error: YAML parse error on bin/templates/bad.yaml: error converting YAML to JSON: yaml: "
                   b"invalid leading UTF-8 octet\n\nUse --debug flag to render out invalid YAML\n")
    (root / "templates" / "bad.yaml").unlink()
    assert cli.main(["template", str(root)]) == 0
    out = capfdbinary.readouterr().out
    assert b'  raw: "\\xff\\xfe\\x00abc"\n' in out


def test_console_script_flushes_everything_before_its_fast_exit(tmp_path):
    """The console script (`python -m helm_core`) ends with os._exit: the whole output must still
    reach a pipe, with main's code."""
    values = {f"k{i:05d}": "v" * 40 for i in range(3000)}  # ~200 KB: more than a pipe buffer
    root = write_chart(tmp_path, {"Chart.yaml": chart_yaml("big"),
                                  "templates/cm.yaml": "kind: ConfigMap\ndata:\n{{ toYaml .Values.big | indent 2 }}\n"})
    (tmp_path / "v.yaml").write_text(yaml.safe_dump({"big": values}))
    proc = subprocess.run([sys.executable, "-m", "helm_core", "template", "x",
                           str(root), "-f", str(tmp_path / "v.yaml")], capture_output=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert yaml.safe_load(proc.stdout.decode().split("\n", 2)[2])["data"] == values
    failing = subprocess.run([sys.executable, "-m", "helm_core", "template",
                              str(tmp_path / "missing")], capture_output=True, text=True, check=False)
    assert failing.returncode == 1 and failing.stderr.startswith("Error: ")


@pytest.mark.parametrize("argv", [
    ["template", "rel", "chart", "-f", "v.yaml", "--set", "a=1", "-s", "templates/x.yaml", "--include-crds", "-y"],
    ["lint", "c1", "c2", "--strict"],
    ["show", "values", "chart", "--computed"],
])
def test_a_local_command_parses_alike_with_only_its_own_subparser(argv):
    whole = cli.build_parser().parse_args(argv)
    alone = cli.build_parser(argv[0]).parse_args(argv)
    assert vars(alone) == vars(whole)


def test_top_level_help_still_lists_every_command(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    out = capsys.readouterr().out
    for command in ("template", "lint", "show", "install", "upgrade", "pull", "repo"):
        assert command in out


# -- render limits (--render-timeout, --render-cpu, --render-memory, --render-output) ----------

#: Run the CLI with every regexp compile stuck (never returning): a function stuck in one call,
#: out of the runtime's checks' reach, as a long regexp match is on a slow machine.
_STUCK_REGEXP = ("import sys, time\n"
                 "from helm_core.golib import goregexp\n"
                 "goregexp.compile = lambda expr: time.sleep(600)\n"
                 "from helm_core.cli import main\n"
                 "sys.exit(main(sys.argv[1:]))\n")


def _cli_subprocess(tmp_path, template: str, *flags: str, stuck_regexp: bool = False,
                    **files: str) -> subprocess.CompletedProcess:
    root = write_chart(tmp_path / "hostile", {"Chart.yaml": chart_yaml("hostile"), "templates/a.yaml": template,
                                              **{name.replace("_", "."): text for name, text in files.items()}})
    env = {"PATH": "/usr/bin:/bin", "HELM_CORE_CACHE": str(tmp_path / "cache"),
           "PYTHONPATH": ":".join(sys.path)}
    program = ["-c", _STUCK_REGEXP] if stuck_regexp else ["-m", "helm_core"]
    return subprocess.run([sys.executable, *program, "template", "x", str(root), *flags],
                          capture_output=True, text=True, timeout=120, env=env)


DOUBLING = '{{ $s := "ab" }}{{ range until 40 }}{{ $s = printf "%s%s" $s $s }}{{ end }}'


def test_render_memory_limit_is_one_error_line(tmp_path):
    proc = _cli_subprocess(tmp_path, DOUBLING, "--render-memory", "64Mi", "--render-output", "4Gi")
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        1, "", "Error: chart hostile: template hostile/templates/a.yaml: passed the render memory limit of 64MiB "
               "(out of memory)\n")


def test_render_output_limit_names_chart_template_and_limit(tmp_path):
    proc = _cli_subprocess(tmp_path, DOUBLING, "--render-output", "1Mi")
    assert (proc.returncode, proc.stderr) == (1, "Error: chart hostile: template hostile/templates/a.yaml: "
                                                 "passed the render output limit of 1MiB (a string of 2097152 characters)\n")


def test_render_timeout_stops_a_loop(tmp_path):
    proc = _cli_subprocess(tmp_path, "{{ range 100000000000 }}{{ end }}", "--render-timeout", "1500ms")
    assert (proc.returncode, proc.stderr) == (
        1, "Error: chart hostile: template hostile/templates/a.yaml: passed the render timeout of 1.5s\n")


def test_watchdog_ends_a_render_stuck_in_one_call_naming_the_chart(tmp_path):
    proc = _cli_subprocess(tmp_path, '{{ regexMatch "a" "a" }}', "--render-timeout", "1s", stuck_regexp=True)
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        1, "", "Error: chart hostile: template hostile/templates/a.yaml: passed the render timeout of 1s "
               "(the render did not stop)\n")


SHARED = '{{ $x := list 1 2 3 }}{{ range until 40 }}{{ $x = dict "a" $x "b" $x }}{{ end }}'


@pytest.mark.parametrize(("action", "what"), [
    ("toJson $x", "JSON"), ("mustToPrettyJson $x", "JSON"), ("toYaml $x", "YAML"), ("toToml $x", "TOML"),
    ("$x", "text"), ('printf "%v" $x', "text"), ("deepCopy $x | len", "copy"),
])
def test_data_shared_many_ways_is_refused_before_it_is_written(tmp_path, action, what):
    # A few maps in memory, 2^40 leaves written out: each ran in one call until the watchdog.
    proc = _cli_subprocess(tmp_path, SHARED + "{{ " + action + " }}", "--render-output", "1Mi", "--render-timeout", "3s")
    assert proc.returncode == 1
    assert proc.stderr.startswith("Error: chart hostile: template hostile/templates/a.yaml: passed the render output "
                                  f"limit of 1MiB (the {what} of a value of more than "), proc.stderr


def test_toml_of_deeply_nested_maps_stops_at_the_output_limit(tmp_path):
    # Each table header repeats its whole path: 30000 nested maps write 900 million characters,
    # for minutes inside one call (the key of every level was quoted again at each level below).
    template = '{{ $d := dict }}{{ range until 30000 }}{{ $d = dict "a" $d }}{{ end }}{{ toToml $d | len }}'
    proc = _cli_subprocess(tmp_path, template, "--render-output", "1Mi", "--render-timeout", "3s")
    assert (proc.returncode, proc.stderr) == (
        1, "Error: chart hostile: template hostile/templates/a.yaml: passed the render output limit of 1MiB "
           "(the TOML of a value)\n")


def test_include_ring_is_one_error_line(tmp_path):
    defines = "".join('{{define "r%d"}}{{include "r%d" .}}{{end}}' % (i, (i + 1) % 300) for i in range(300))
    proc = _cli_subprocess(tmp_path, defines + 'a: {{ include "r0" . }}')
    assert (proc.returncode, proc.stderr) == (
        1, "Error: rendering template failed: hostile/templates/a.yaml: include and tpl calls nested more than "
           '10000 deep (at include "r100")\n\nUse --debug flag to render out invalid YAML\n')


@pytest.mark.parametrize(("text", "seconds"), [("30s", 30.0), ("1m30s", 90.0), ("500ms", 0.5), ("1.5s", 1.5)])
def test_render_timeout_takes_go_durations(text, seconds):
    from helm_core.cli import limits as cli_limits
    assert cli_limits.parse_duration(text) == seconds


def test_limit_flags_reach_the_render(capsys):
    code, out, err = run(capsys, "template", str(EXAMPLES / "hello"), "--render-output", "100")
    assert code == 1 and out == ""
    assert err.startswith("Error: chart hello: template hello/templates/") and \
        err.endswith(": passed the render output limit of 100B\n")


def test_an_in_process_command_leaves_the_address_space_limit_as_it_was(capsys):
    import resource

    before = resource.getrlimit(resource.RLIMIT_AS)
    code, _out, _err = run(capsys, "template", str(EXAMPLES / "hello"), "--render-memory", "2Gi")
    assert code == 0
    assert resource.getrlimit(resource.RLIMIT_AS) == before


@pytest.mark.parametrize(("text", "namespace"), [
    (b"current-context: a\ncontexts:\n- name: a\n  context: {namespace: team}\n", "team"),
    # the key spelled with an escape still names the namespace (kubectl reads YAML so)
    (b'current-context: a\ncontexts:\n- name: a\n  context: {"n\\x61mespace": team}\n', "team"),
    (b"current-context: a\ncontexts:\n- name: a\n  context: {cluster: c}\n", ""),
    (b"", ""),
])
def test_default_namespace_comes_from_the_kubeconfig_context(tmp_path, text, namespace):
    from helm_core.cli import settings

    config = tmp_path / "config"
    config.write_bytes(text)
    assert settings.kubeconfig_namespace(str(config), "", {}) == namespace


def _linted_lua_chart(tmp_path, pre_lint: str):
    """A chart whose pre-render handler names the ConfigMap (lint then judges that name) and
    whose pre-lint handler is ``pre_lint``."""
    return write_chart(tmp_path, {
        "Chart.yaml": chart_yaml("linted") + "icon: https://example.com/i.png\n",
        "values.yaml": "name: good\n",
        "ext/lua/chart.lua": ('events.on("pre-render", 0, function(_) _.values.name = "Bad_Name" end)\n'
                              f'events.on("pre-lint", 0, function(_) {pre_lint} end)\n'),
        "templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.name }}\n",
    })


def test_lint_runs_the_chart_lua_lint_events(capsys, tmp_path):
    """lint fires chart-loaded, pre-render, post-render and pre-lint (DESIGN 4): what pre-render
    changes is what the rules judge, pre-lint sees the rendered objects."""
    root = _linted_lua_chart(tmp_path / "ok", 'print(#_.objects .. " " .. _.objects[1].metadata.name)')
    code, out, err = run(capsys, "lint", str(root))
    assert code == 0
    assert '[WARNING] templates/cm.yaml: object name does not conform to Kubernetes naming requirements: ' \
           '"Bad_Name"' in out
    assert err == "lua: linted: 1 Bad_Name\n"


def test_a_failing_pre_lint_handler_is_a_lint_error(capsys, tmp_path):
    root = _linted_lua_chart(tmp_path / "fails", 'error("every ConfigMap needs a team label")')
    code, out, err = run(capsys, "lint", str(root))
    assert code == 1
    assert "[ERROR] templates/: " in out and "every ConfigMap needs a team label" in out
    assert err == "Error: 1 chart(s) linted, 1 chart(s) failed\n"


def test_unique_items_over_many_maps_is_helms_answer_at_once(tmp_path):
    # jsonschema compared 30000 maps pair by pair: the CLI's watchdog ended it after minutes' worth.
    schema = '{"properties": {"x": {"type": "array", "uniqueItems": true}}}'
    values = "x: [" + ", ".join("{a: %d}" % i for i in range(30000)) + ", {a: 5}]\n"
    proc = _cli_subprocess(tmp_path, "a: b\n", "--render-timeout", "3s", values_yaml=values, values_schema_json=schema)
    assert (proc.returncode, proc.stderr) == (1, "Error: values don't meet the specifications of the schema(s) in the "
                                                 "following chart(s):\nhostile:\n- at '/x': items at 5 and 30,000 are equal\n\n")


def test_watchdog_names_the_chart_whose_values_schema_it_stopped(tmp_path):
    schema = '{"properties": {"x": {"type": "string", "pattern": "a+"}}}'
    proc = _cli_subprocess(tmp_path, "a: b\n", "--render-timeout", "1s", values_yaml="x: a\n",
                           values_schema_json=schema, stuck_regexp=True)
    assert (proc.returncode, proc.stderr) == (
        1, "Error: chart hostile: values.schema.json: passed the render timeout of 1s (the render did not stop)\n")
