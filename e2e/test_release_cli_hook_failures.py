"""A failed or timed-out hook, as helm-core says it beside stock helm 3.22 on the real API
server: for each event (pre/post install, upgrade, rollback, delete, and test) the same exit
code, stdout and stderr, and the same versions stored after: helm's action prefix, then
WatchUntilReady's multierror list (``1 error occurred:\\n\\t* job NAME failed: DeadlineExceeded``,
or ``timed out waiting for the condition``); a hook the server refuses to create: ``warning:
Hook EVENT PATH failed:`` and the server's words in that list. Unit tests of the words:
tests/action/test_hooks.py."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from e2e import release_kit as kit
from e2e.conftest import ClusterInfo
from e2e.test_release_cli_helm_flags import _core, _env, _helm, helm
from helm_core.kube import live

pytestmark = pytest.mark.e2e

__all__ = ["helm"]  # the fixture used by the tests below

#: A hook for the event named by ``refuse`` that the API server refuses to create (a ConfigMap
#: key it does not accept; client-side it is a valid object).
REFUSED = ('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "{{ .Release.Name }}-refused"\n  annotations:\n'
           '    helm.sh/hook: "{{ .Values.refuse }}"\ndata:\n  "not a key": x\n')
#: The failing and hanging hooks of release_kit, and the refused one.
HOOKS = kit.FAILING_HOOKS + "{{- if .Values.refuse }}\n---\n" + REFUSED + "{{- end }}\n"

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
    # a hook the API server refuses to create: helm's "warning: Hook EVENT PATH failed" words
    ("xpi", (), ("install", "{r}", "{chart}", "--set", "refuse=pre-install")),
    ("xpo", (), ("install", "{r}", "{chart}", "--set", "refuse=post-install")),
    ("xui", (("install", "{r}", "{chart}"),), ("upgrade", "{r}", "{chart}", "--set", "refuse=pre-upgrade")),
    ("xuo", (("install", "{r}", "{chart}"),), ("upgrade", "{r}", "{chart}", "--set", "refuse=post-upgrade")),
    ("xri", (("install", "{r}", "{chart}", "--set", "refuse=pre-rollback"), ("upgrade", "{r}", "{chart}")),
     ("rollback", "{r}", "1")),
    ("xdi", (("install", "{r}", "{chart}", "--set", "refuse=pre-delete"),), ("uninstall", "{r}")),
    ("xdo", (("install", "{r}", "{chart}", "--set", "refuse=post-delete"),), ("uninstall", "{r}")),
    ("xte", (("install", "{r}", "{chart}", "--set", "refuse=test"),), ("test", "{r}")),
    ("xai", (), ("install", "{r}", "{chart}", "--set", "refuse=post-install", "--atomic")),
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
              values="fail: \"\"\nhang: \"\"\nrefuse: \"\"\n")
    said: dict[str, tuple[object, ...]] = {}
    for who in ("core", "stock"):
        name = f"{who}-{short}"
        for args in before:
            _run(who, helm, tmp_path, cluster, namespace, args, name=name, chart=chart, ok=True)
        failed = _run(who, helm, tmp_path, cluster, namespace, failing, name=name, chart=chart, ok=False)
        # what the failure left stored: each version's status and description (helm's error in it)
        stored = subprocess.run([*((sys.executable, "-m", "helm_core") if who == "core" else (helm,)),
                                 "history", name, "-n", namespace, "-o", "json"],
                                capture_output=True, text=True, timeout=60, env=_env(tmp_path, cluster))
        versions = ([(v["revision"], v["status"], v["description"].replace(name, "NAME"))
                     for v in json.loads(stored.stdout)] if stored.returncode == 0 else [])
        said[who] = (_said(failed, name), stored.returncode, stored.stderr.replace(name, "NAME"), versions)
    assert said["core"] == said["stock"]


def _run(who: str, helm: str, tmp_path: Path, cluster: ClusterInfo, namespace: str, args: tuple[str, ...], *,
         name: str, chart: str, ok: bool) -> subprocess.CompletedProcess[str]:
    filled = [a.format(r=name, chart=chart) for a in args]
    return (_core(tmp_path, cluster, namespace, *filled, ok=ok) if who == "core"
            else _helm(helm, tmp_path, cluster, namespace, *filled, ok=ok))
