"""Building trees and closures pauses the cyclic GC and leaves its state as it was."""
from __future__ import annotations

import gc

import pytest

from helm_core.gotemplate import environment, gcpause


@pytest.mark.parametrize("enabled", [True, False])
def test_parse_and_first_execution_leave_the_collector_as_they_found_it(enabled: bool) -> None:
    seen = []
    tset = environment.Environment({"probe": lambda: seen.append(gc.isenabled()) or "p"}).new_set()
    (gc.enable if enabled else gc.disable)()
    try:
        tset.parse("t", "{{ if .on }}{{ probe }}{{ end }}")
        assert tset.execute("t", {"on": True}) == "p"
        assert gc.isenabled() is enabled
        assert seen == [enabled]  # template functions run with the collector as the caller set it
    finally:
        gc.enable()


def test_nested_pauses_restore_the_outer_state() -> None:
    assert gc.isenabled()
    with gcpause.paused():
        with gcpause.paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
