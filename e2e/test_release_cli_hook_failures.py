"""A failed or timed-out hook, as helm-core says it beside stock helm 3.22 on the real API
server: for each event (pre/post install, upgrade, rollback, delete, and test) the same exit
code, stdout and stderr (helm's action prefix, then WatchUntilReady's multierror list: ``1
error occurred:\\n\\t* job NAME failed: DeadlineExceeded``, or ``timed out waiting for the
condition``). Unit tests of the words: tests/action/test_hooks.py."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from e2e import release_kit as kit
from e2e.conftest import ClusterInfo
from e2e.test_release_cli_helm_flags import _core, _helm, helm
from helm_core.kube import live

pytestmark = pytest.mark.e2e

__all__ = ["helm"]  # the fixture used by the tests below

#: A hook Job that fails for the event named by ``fail``; one that never starts (suspended)
#: for the event named by ``hang``.
HOOKS = ("{{- if .Values.fail }}\n"
         + kit.hook_job("{{ .Release.Name }}-check", "{{ .Values.fail }}", fail=True)
         + "{{- end }}\n{{- if .Values.hang }}\n---\n"
         + kit.hook_job("{{ .Release.Name }}-hang", "{{ .Values.hang }}").replace("spec:\n", "spec:\n  suspend: true\n", 1)
         + "{{- end }}\n")

#: (the release's name, the commands before, the command that fails)
STEPS: tuple[tuple[str, tuple[tuple[str, ...], ...], tuple[str, ...]], ...] = (
    ("pi", (), ("install", "{r}", "{chart}", "--set", "fail=pre-install")),
    ("po", (), ("install", "{r}", "{chart}", "--set", "fail=post-install")),
    ("ui", (("install", "{r}", "{chart}"),), ("upgrade", "{r}", "{chart}", "--set", "fail=pre-upgrade")),
    ("uo", (("install", "{r}", "{chart}"),), ("upgrade", "{r}", "{chart}", "--set", "fail=post-upgrade")),
    ("ri", (("install", "{r}", "{chart}", "--set", "fail=pre-rollback"), ("upgrade", "{r}", "{chart}")),
     ("rollback", "{r}", "1")),
    ("ro", (("install", "{r}", "{chart}", "--set", "fail=post-rollback"), ("upgrade", "{r}", "{chart}")),
     ("rollback", "{r}", "1")),
    ("di", (("install", "{r}", "{chart}", "--set", "fail=pre-delete"),), ("uninstall", "{r}")),
    ("do", (("install", "{r}", "{chart}", "--set", "fail=post-delete"),), ("uninstall", "{r}")),
    ("te", (("install", "{r}", "{chart}", "--set", "fail=test"),), ("test", "{r}")),
    ("ai", (), ("install", "{r}", "{chart}", "--set", "fail=post-install", "--atomic")),
    ("au", (("install", "{r}", "{chart}"),), ("upgrade", "{r}", "{chart}", "--set", "fail=pre-upgrade",
                                               "--atomic")),
    ("ti", (), ("install", "{r}", "{chart}", "--set", "hang=pre-install", "--timeout", "2s")),
    ("tu", (("install", "{r}", "{chart}"),), ("upgrade", "{r}", "{chart}", "--set", "hang=post-upgrade",
                                               "--timeout", "2s")),
)


def _said(done: subprocess.CompletedProcess[str], name: str) -> tuple[int, str, str]:
    """What a command said, its release's name as NAME (and its times, in ``test``, as T)."""
    def plain(text: str) -> str:
        lines = [("LAST DEPLOYED: T" if line.startswith("LAST DEPLOYED: ") else
                  f"{line.split(':')[0]}: T" if line.startswith(("TEST SUITE:", "Last Started:",
                                                                 "Last Completed:")) and ":" in line[6:]
                  else line) for line in text.replace(name, "NAME").split("\n")]
        return "\n".join(lines)
    return done.returncode, plain(done.stdout), plain(done.stderr)


@pytest.mark.parametrize("step", STEPS, ids=[s[0] for s in STEPS])
def test_a_failed_hook_says_what_helm_says(cluster: ClusterInfo, hc: live.LiveClient, namespace: str,
                                           tmp_path: Path, helm: str, step: tuple) -> None:
    short, before, failing = step
    chart = str(tmp_path / "demo")
    kit.chart(tmp_path / "demo", {"cm.yaml": kit.configmap("{{ .Release.Name }}-cm"), "hooks.yaml": HOOKS},
              values="fail: \"\"\nhang: \"\"\n")
    said = {}
    for who in ("core", "stock"):
        name = f"{who}-{short}"

        def run(args: tuple[str, ...], ok: bool) -> subprocess.CompletedProcess[str]:
            filled = [a.format(r=name, chart=chart) for a in args]
            return (_core(tmp_path, cluster, namespace, *filled, ok=ok) if who == "core"
                    else _helm(helm, tmp_path, cluster, namespace, *filled, ok=ok))
        for args in before:
            run(args, True)
        said[who] = _said(run(failing, False), name)
    assert said["core"] == said["stock"]
