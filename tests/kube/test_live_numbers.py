"""Request bodies carry numbers as Go writes them (helm_core.kube.live.go_numbers)."""
from __future__ import annotations

import json

from helm_core.golib import goyaml
from helm_core.kube import live


def test_whole_floats_become_ints_as_in_gos_json():
    decoded = goyaml.load("spec:\n  minLength: 1\n  ratio: 0.5\n  big: 1e300\n  list: [2, 3.25]\n  enabled: true\n",
                          source="crd.yaml")
    assert json.dumps(live.go_numbers(decoded)) == (
        '{"spec": {"minLength": 1, "ratio": 0.5, "big": 1e+300, "list": [2, 3.25], "enabled": true}}')
