"""support/oneshot: one call due later, on a thread the caller does not wait for."""
from __future__ import annotations

import threading
import time

from helm_core.support import oneshot


def test_the_call_comes_after_its_delay_on_another_thread() -> None:
    done = threading.Event()
    seen: list[tuple[float, int]] = []
    start = time.monotonic()
    # half a second: the look that follows comes before it even after a pause of the process
    oneshot.call_after(0.5, lambda: (seen.append((time.monotonic() - start, threading.get_ident())), done.set()))
    assert not seen  # not before its delay
    assert done.wait(5)
    assert seen[0][0] >= 0.5 and seen[0][1] != threading.get_ident()


def test_a_cancelled_call_never_comes_and_cancelling_again_does_nothing() -> None:
    seen: list[int] = []
    cancel = oneshot.call_after(0.5, lambda: seen.append(1))  # cancelled well before it is due
    cancel()
    cancel()
    time.sleep(0.6)
    assert seen == []


def test_cancelling_after_the_call_does_nothing_and_a_past_or_huge_delay_is_accepted() -> None:
    done = threading.Event()
    cancel = oneshot.call_after(-1, done.set)  # a deadline already passed: at once
    assert done.wait(5)
    cancel()
    never: list[int] = []
    oneshot.call_after(float("1e300"), lambda: never.append(1))()  # beyond the lock's longest wait
    assert never == []
