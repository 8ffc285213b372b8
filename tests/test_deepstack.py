"""deepstack: work that recurses as deep as Helm's inputs, on a stack that holds it."""
from __future__ import annotations

import sys

import pytest

from helm_core.support import deepstack
def _depth(n: int) -> int:
    return 0 if n == 0 else 1 + _depth(n - 1)


def test_recursion_far_past_the_default_limit_runs_and_the_limit_is_restored():
    before = sys.getrecursionlimit()
    assert deepstack.run(lambda: _depth(100_000)) == 100_000
    assert sys.getrecursionlimit() == before


def test_nested_runs_keep_the_raised_limit_until_the_outer_one_ends():
    before = sys.getrecursionlimit()
    inner = deepstack.run(lambda: deepstack.run(sys.getrecursionlimit) + _depth(50_000))
    assert inner == deepstack.RECURSION_LIMIT + 50_000
    assert sys.getrecursionlimit() == before


def test_exceptions_reach_the_caller():
    def fail() -> None:
        raise KeyError("boom")

    with pytest.raises(KeyError, match="boom"):
        deepstack.run(fail)


def test_without_room_for_the_stack_the_work_runs_here(monkeypatch):
    monkeypatch.setattr(deepstack, "STACK_BYTES", 1 << 62)  # no system reserves this
    assert deepstack.run(lambda: 7) == 7
    with pytest.raises(RecursionError):
        deepstack.run(lambda: _depth(100_000))
