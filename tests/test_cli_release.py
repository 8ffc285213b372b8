"""The release CLI's pure parts: Helm's table layout, durations, status text."""
from __future__ import annotations

import argparse
import datetime as dt

import pytest

from helm_core import cli

from helm_core.cli import common as cli_common
from helm_core.cli import release as cli_release
from helm_core.storage import release as rel


@pytest.mark.parametrize(("text", "seconds"), [
    ("300", 300.0), ("5m0s", 300.0), ("90s", 90.0), ("1h", 3600.0), ("1m30s", 90.0),
    ("1.5s", 1.5), ("250ms", 0.25)], ids=["plain", "helm-default", "seconds", "hours", "mixed",
                                          "fraction", "millis"])
def test_parse_timeout_reads_go_durations(text: str, seconds: float) -> None:
    assert cli_release.parse_timeout(text) == seconds


def test_parse_timeout_refuses_garbage() -> None:
    with pytest.raises(argparse.ArgumentTypeError, match='^invalid duration "5 minutes"$'):
        cli_release.parse_timeout("5 minutes")


def test_table_pads_every_cell_and_joins_with_tabs_as_uitable() -> None:
    text = cli_release.table([["NAME", "REVISION"], ["web", "1"]])
    assert text == "NAME\tREVISION\nweb \t1       "


def test_table_cuts_long_cells_with_dots_at_the_max_width() -> None:
    text = cli_release.table([["DESCRIPTION"], ["x" * 70]], max_width=60)
    assert text.splitlines()[1] == "x" * 57 + "..."


@pytest.mark.parametrize(("rows", "max_width", "expected"), [
    # helm history of a failed install: the cell measured whole (tabs and line breaks count
    # nothing), cut to its longest line
    ([["REVISION", "STATUS", "DESCRIPTION"],
      ["1", "failed", 'Release "b" failed: failed pre-install: 1 error occurred:\n\t* job b-check failed: '
                      'DeadlineExceeded\n\n'], ["2", "deployed", "Install complete"]], 0,
     'REVISION\tSTATUS  \tDESCRIPTION                                              \n'
     '1       \tfailed  \tRelease "b" failed: failed pre-install: 1 error occurr...\n'
     '2       \tdeployed\tInstall complete                                         '),
    # what is left of a cut cell spans its lines, the other cells blank (an empty column: " ")
    ([["A", "B", ""], ["x", "ab\nabcdefghij", ""], ["y", "short", ""]], 0,
     'A\tB         \t\nx\tab        \t\n \tabcde...  \t \ny\tshort     \t'),
    # wide characters count two, and the cut stops past the width as uitable's does
    ([["A", "B"], ["x", "ab\ncdefghijklmn"], ["y", "日本語テキスト"]], 8,
     'A\tB       \nx\tab      \n \tcde...  \ny\t日本語...'),
], ids=["failed-history", "lines", "wide"])
def test_table_lays_out_cells_of_several_lines_as_uitable(rows: list[list[str]], max_width: int,
                                                        expected: str) -> None:
    """Expected texts: gosuri/uitable v0.0.4 (helm's) given the same rows."""
    assert cli_release.table(rows, max_width=max_width) == expected


def test_status_text_is_helms_layout() -> None:
    when = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)
    version = rel.ReleaseVersion(name="web", namespace="apps", version=rel.parse_version(
        "01M84CHBX2MR71618TA8Q3QJFN"), status=rel.Status.DEPLOYED, chart_name="demo",
        chart_version="0.1.0", notes="  Thanks  \n", last_deployed=when)
    assert cli_release.status_text(version) == (
        "NAME: web\nLAST DEPLOYED: Fri Jan  2 03:04:05 2026\nNAMESPACE: apps\nSTATUS: deployed\n"
        "REVISION: 01M84CHBX2MR71618TA8Q3QJFN\nTEST SUITE: None\nNOTES:\nThanks\n")


@pytest.mark.parametrize("command", ["install", "upgrade", "rollback", "uninstall", "get",
                                     "history", "list", "status", "test"])
def test_release_commands_are_registered(command: str) -> None:
    parser = cli.build_parser()
    choices = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    assert command in choices


def test_install_flags_parse_like_helm() -> None:
    args = cli.parse([
        "install", "web", "./chart", "-n", "apps", "--wait", "--timeout", "2m", "--atomic",
        "--create-namespace", "--dry-run", "-f", "v.yaml", "--set", "a=1", "-o", "json",
        "--kube-context", "ctx", "--kubeconfig", "/k"])
    assert (*args.args, args.namespace, args.wait, args.timeout, args.atomic,
            args.create_namespace, args.dry_run, args.values, args.set_values, args.output,
            args.kube_context, args.kubeconfig) == (
        "web", "./chart", "apps", True, 120.0, True, True, True, ["v.yaml"], ["a=1"], "json",
        "ctx", "/k")


def test_post_renderers_file_and_crds_flag(tmp_path) -> None:
    from helm_core.errors import PatchError

    spec = tmp_path / "pr.yaml"
    spec.write_text("postRenderers:\n- kustomize:\n    images: [{name: nginx, newTag: '2'}]\n"
                    "commonMetadata:\n  labels: {team: x}\n")
    args = cli.build_parser().parse_args(["upgrade", "web", "./chart", "--post-renderers", str(spec),
                                          "--crds", "CreateReplace"])
    options = cli_common.post_render_options(args)
    assert options.kustomize[0].images[0].new_tag == "2" and options.common_labels == {"team": "x"}
    assert args.crds == "CreateReplace"
    spec.write_text("patches: []\n")
    with pytest.raises(PatchError, match="expected a map with postRenderers"):
        cli_common.post_render_options(args)
    with pytest.raises(cli.UsageError, match='invalid argument "Replace" for "--crds" flag'):  # no exit
        cli.build_parser().parse_args(["install", "web", "./chart", "--crds", "Replace"])


@pytest.mark.parametrize(("flags", "expected"), [
    ([], {}),
    (["-l", "team=a"], {"team": "a"}),
    (["--labels", "team=a,tier=web"], {"team": "a", "tier": "web"}),
    (["--labels", "note=a,b"], {"note": "a,b"}),  # one "=": one pair, commas and all (pflag)
    (["--labels", '"team=a"'], {"team": "a"}),  # one "=": outer quotes trimmed
    (["--labels", 'a=1,"b=2,3"'], {"a": "1", "b": "2,3"}),  # more: a CSV record
    (["-l", "team=a", "-l", "tier=web,team=b"], {"team": "b", "tier": "web"}),  # uses add up
    (["-l", "team="], {"team": ""}),
    (["-l", "k=v=w"], {"k": "v=w"}),
], ids=["none", "one", "two", "comma-in-value", "quoted", "csv", "repeated", "empty-value", "equals-in-value"])
@pytest.mark.parametrize("command", ["install", "upgrade"])
def test_labels_flag_parses_as_pflags_string_to_string(command: str, flags: list[str],
                                                       expected: dict[str, str]) -> None:
    args = cli.parse([command, "web", "./chart", *flags])
    assert args.labels == expected


@pytest.mark.parametrize(("value", "message"), [
    ("foo", 'invalid argument "foo" for "-l, --labels" flag: foo must be formatted as key=value'),
    ("a=1,b", 'invalid argument "a=1,b" for "-l, --labels" flag: b must be formatted as key=value'),
])
def test_labels_flag_refuses_a_pair_without_equals_in_pflags_words(value: str, message: str) -> None:
    """"a=1,b" holds one "=": pflag takes it as one pair ("a" = "1,b"), as here; "a=1,b,c=2" splits."""
    if value == "a=1,b":
        assert cli.parse(["install", "web", "./chart", "-l", value]).labels == {"a": "1,b"}
        value, message = "a=1,b,c=2", message.replace('"a=1,b"', '"a=1,b,c=2"')
    with pytest.raises(cli.UsageError) as refused:
        cli.parse(["install", "web", "./chart", "-l", value])
    assert str(refused.value) == message


def test_list_selector_flag() -> None:
    assert cli.parse(["list", "-l", "team=a,tier!=web"]).selector == "team=a,tier!=web"
    assert cli.parse(["list", "--selector", "team"]).selector == "team"
    assert cli.parse(["list"]).selector == ""
