"""Command line and environment of `helm-operator run` (helm_operator.main)."""
from __future__ import annotations

import argparse
import json
import logging
import socket
import subprocess
import sys

import pytest

from helm_operator import main


def test_defaults_without_flags_or_environment():
    inv = main.parse(["run"], {})
    assert inv.settings.watch.namespaces == ()
    assert inv.settings.watch.values_from is True
    assert inv.settings.security.lua_allowlist == frozenset()
    assert not inv.settings.security.require_service_account
    assert (inv.settings.runtime.workers, inv.settings.runtime.log_format) == (16, "text")


def test_environment_sets_everything():
    env = {"HELM_OPERATOR_NAMESPACES": "a, b", "HELM_OPERATOR_LUA_ALLOWLIST": "io,os",
           "HELM_OPERATOR_DEFAULT_SERVICE_ACCOUNT": "deployer",
           "HELM_OPERATOR_REQUIRE_SERVICE_ACCOUNT": "true", "HELM_OPERATOR_WORKERS": "3",
           "HELM_OPERATOR_LOG_FORMAT": "json", "HELM_OPERATOR_PROBE_PORT": "0",
           "KUBECONFIG": "/k"}
    inv = main.parse(["run"], env)
    assert inv.settings.watch.namespaces == ("a", "b")
    assert inv.settings.security.lua_allowlist == {"io", "os"}
    assert inv.settings.security.default_service_account == "deployer"
    assert inv.settings.security.require_service_account
    assert (inv.settings.runtime.workers, inv.settings.runtime.log_format) == (3, "json")
    assert inv.settings.runtime.probe_port == 0
    assert inv.kubeconfig == "/k"


@pytest.mark.parametrize("name", ["REQUIRE_SERVICE_ACCOUNT", "IN_CLUSTER", "VERBOSE"])
def test_a_misspelt_switch_in_the_environment_is_refused_not_read_as_false(name):
    # a typo in deploy/config.yaml must not switch off a safety setting without a word
    what = name.lower().replace("_", " ")
    with pytest.raises(ValueError, match=f"^{what} must be true or false, not 'ture'$"):
        main.parse(["run"], {f"HELM_OPERATOR_{name}": "ture"})
    main.parse(["run"], {f"HELM_OPERATOR_{name}": "Yes"})  # the words that were read as true still are


def test_every_run_option_says_what_it_does():
    run = next(a for a in main.parser()._actions if isinstance(a, argparse._SubParsersAction)).choices["run"]
    silent = [a.option_strings[0] for a in run._actions if a.option_strings and not a.help]
    assert silent == []


def test_flags_win_over_environment():
    env = {"HELM_OPERATOR_NAMESPACES": "a", "HELM_OPERATOR_WORKERS": "3"}
    env["HELM_OPERATOR_WATCH_VALUES_FROM"] = "true"
    inv = main.parse(["run", "-n", "x,y", "-n", "z", "--workers", "5",
                      "--watch-values-from", "false"], env)
    assert inv.settings.watch.namespaces == ("x", "y", "z")
    assert inv.settings.watch.values_from is False
    assert inv.settings.runtime.workers == 5


@pytest.mark.parametrize(("argv", "env", "message"), [
    (["run", "--lua-allow", "io,exec"], {},
     "unknown Lua permission(s) in the allowlist: exec (known: io, network, os)"),
    (["run"], {"HELM_OPERATOR_WORKERS": "many"}, "workers must be an integer, not 'many'"),
    (["run", "--workers", "0"], {}, "workers must be between 1 and 256, not 0"),
    (["run"], {"HELM_OPERATOR_WATCH_VALUES_FROM": "sometimes"},
     "watch values from must be true or false, not 'sometimes'"),
    (["run", "--selector", "shard in shard1"], {},
     "invalid label selector 'shard in shard1': unable to parse requirement: found 'shard1' expected: '('"),
    (["run", "--selector", "a=1,=b"], {},
     "invalid label selector 'a=1,=b': found '=', expected: identifier after ','"),
    (["run", "--announce-after=-1s"], {}, "announce after: invalid duration '-1s' (want e.g. 5m, 90s, 1h30m)"),
], ids=["lua", "workers-text", "workers-range", "watch-values-from", "selector-in",
        "selector-key", "announce-after"])
def test_bad_settings_are_refused(argv, env, message):
    with pytest.raises(ValueError) as info:
        main.parse(argv, env)
    assert str(info.value) == message


def test_announce_after_is_a_duration_and_0s_announces_at_once():
    assert main.parse(["run"], {}).settings.runtime.announce_after_s == 5.0
    assert main.parse(["run", "--announce-after", "0s"], {}).settings.runtime.announce_after_s == 0
    env = {"HELM_OPERATOR_ANNOUNCE_AFTER": "1500ms"}
    assert main.parse(["run"], env).settings.runtime.announce_after_s == 1.5


def test_leader_election_and_shard_flags():
    inv = main.parse(["run", "--leader-elect", "--leader-election-namespace", "system",
                      "--identity", "replica-a", "--selector", "sharding.helm.sh/key in (a, b)"], {})
    election = inv.settings.leader_election
    assert (election.enabled, election.namespace, election.identity) == (True, "system", "replica-a")
    assert (election.lease_duration_s, election.renew_deadline_s, election.retry_period_s) == (15, 10, 2)
    assert election.lease_name.startswith("helm-operator-leader-")
    assert inv.settings.watch.selector == "sharding.helm.sh/key in (a, b)"


def test_leader_election_defaults_to_the_pod_name_and_namespace():
    env = {"HELM_OPERATOR_LEADER_ELECT": "true", "POD_NAME": "op-7d9-x2", "POD_NAMESPACE": "ops"}
    election = main.parse(["run"], env).settings.leader_election
    assert (election.enabled, election.namespace, election.identity) == (True, "ops", "op-7d9-x2")
    assert election.lease_name == "helm-operator-leader"
    assert main.parse(["run"], {}).settings.leader_election.identity == socket.gethostname()


def test_leader_election_outside_a_cluster_needs_a_namespace(monkeypatch, tmp_path):
    monkeypatch.setattr(main, "POD_NAMESPACE_FILE", tmp_path / "absent")
    with pytest.raises(ValueError, match="^--leader-election-namespace is required outside a cluster$"):
        main.parse(["run", "--leader-elect"], {})


def test_main_reports_bad_settings_with_exit_code_2(capsys):
    assert main.main(["run", "--workers", "0"]) == 2
    assert capsys.readouterr().err == "helm-operator: workers must be between 1 and 256, not 0\n"


def test_json_log_lines():
    record = logging.LogRecord("helm_operator", logging.WARNING, __file__, 1, "hello %s", ("x",), None)
    entry = json.loads(main.JsonFormatter().format(record))
    assert (entry["level"], entry["logger"], entry["message"]) == ("warning", "helm_operator", "hello x")
    assert entry["time"].endswith("Z")


def test_text_log_lines_name_the_object_kopf_logs_about():
    record = logging.LogRecord("kopf.objects", logging.INFO, __file__, 1, "Handler %r succeeded.", ("apply",), None)
    record.k8s_ref = {"apiVersion": "helm.sh/v1alpha1", "kind": "HelmRequest", "namespace": "team-a",
                      "name": "web", "uid": "u"}
    line = main.TextFormatter().format(record)
    assert line.endswith(" INFO    kopf.objects [team-a/web] Handler 'apply' succeeded.")
    assert record.getMessage() == "Handler 'apply' succeeded."  # the record itself is left as it was
    plain = logging.LogRecord("helm_operator", logging.INFO, __file__, 1, "hello %s", ("x",), None)
    assert main.TextFormatter().format(plain).endswith(" INFO    helm_operator hello x")


def test_kopfs_warning_that_signals_are_ignored_is_not_logged(capsys, monkeypatch):
    # Kopf runs in a thread and says so at every start; SIGTERM still stops the controller
    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", list(root.handlers))  # setup_logging's are dropped after
    monkeypatch.setattr(root, "level", root.level)
    main.setup_logging("text", verbose=False)
    kopf_log = logging.getLogger("kopf._core.reactor.running")
    kopf_log.warning("OS signals are ignored: running not in the main thread.")
    kopf_log.warning("something else")
    err = capsys.readouterr().err
    assert "OS signals are ignored" not in err and "something else" in err


def test_module_entry_point_prints_usage():
    out = subprocess.run([sys.executable, "-m", "helm_operator", "--help"], capture_output=True, text=True)
    assert out.returncode == 0
    assert "usage: helm-operator" in out.stdout and "run" in out.stdout


def test_requeue_dependency_is_flux_s_flag_and_default():
    assert main.parse(["run"], {}).settings.runtime.requeue_dependency_s == 30.0
    assert main.parse(["run", "--requeue-dependency", "1m"], {}).settings.runtime.requeue_dependency_s == 60.0
    env = {"HELM_OPERATOR_REQUEUE_DEPENDENCY": "10s"}
    assert main.parse(["run"], env).settings.runtime.requeue_dependency_s == 10.0
    with pytest.raises(ValueError, match="requeue dependency must be positive"):
        main.parse(["run", "--requeue-dependency", "0s"], {})
