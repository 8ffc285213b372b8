"""Operator settings refuse nonsense at start-up (helm_operator.settings)."""
from __future__ import annotations


import pytest

from helm_operator import settings

from helm_core.support import records
def test_defaults_watch_all_namespaces_and_allow_no_lua():
    s = settings.OperatorSettings()
    assert s.watch.cluster_wide
    assert s.security.lua_allowlist == frozenset()
    assert s.runtime.workers == settings.DEFAULT_WORKERS


def test_settings_are_frozen():
    with pytest.raises(records.FrozenInstanceError):
        settings.RuntimeSettings().workers = 3  # type: ignore[misc]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"workers": 0}, "workers must be between 1 and 256, not 0"),
    ({"log_format": "xml"}, "log format must be one of text, json, not 'xml'"),
    ({"probe_port": 70000}, "probe port must be between 0 and 65535, not 70000"),
    ({"metrics_port": -1}, "metrics port must be between 0 and 65535, not -1"),
], ids=["workers", "log-format", "probe-port", "metrics-port"])
def test_runtime_settings_refuse_bad_values(kwargs, message):
    with pytest.raises(ValueError) as info:
        settings.RuntimeSettings(**kwargs)
    assert str(info.value) == message
