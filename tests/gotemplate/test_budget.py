"""The render budget as the template runtime enforces it (no engine, no chart)."""
from __future__ import annotations

import pytest

from helm_core.support import deepstack
from helm_core.gotemplate import Environment, budget
from helm_core.gotemplate.funcs import lists, random, regex, sprig
from helm_core.support.limits import RenderLimitExceeded, RenderLimits

LIMITS = RenderLimits(timeout_s=0.5, cpu_s=10, output_bytes=1000)
#: For renders that are not to meet a deadline: the default time limits, far above their
#: milliseconds, so a pause of the process (a full garbage collection late in the suite, a
#: loaded machine) cannot trip the timeout before the output limit or the end.
OUTPUT = RenderLimits(output_bytes=1000)


def execute(text: str, limits: RenderLimits = LIMITS) -> str:
    tset = Environment(sprig.SPRIG_FUNCS).new_set()
    tset.parse("t", text)
    with budget.active(budget.Budget(limits)) as active, active.timed():
        return deepstack.run(lambda: tset.execute("t", None))


@pytest.mark.parametrize(("text", "limit", "message"), [
    ("{{ range 100000000000 }}{{ end }}", "timeout_s", "passed the render timeout of 0.5s"),
    ('{{ range 100000 }}{{ "abcdefgh" }}{{ end }}', "output_bytes", "passed the render output limit of 1000B"),
    ('{{ repeat 1001 "a" }}', "output_bytes", "passed the render output limit of 1000B (a string of 1001 characters)"),
    ('{{ $l := list 1 }}{{ range until 10 }}{{ $l = concat $l $l }}{{ end }}', "output_bytes",
     "passed the render output limit of 1000B (a list of 128 items)"),
    ("{{ until 126 }}", "output_bytes", "passed the render output limit of 1000B (a list of 126 numbers)"),
])
def test_budget_stops_execution(text, limit, message):
    with pytest.raises(RenderLimitExceeded) as info:
        execute(text, LIMITS if limit == "timeout_s" else OUTPUT)
    assert (info.value.limit, str(info.value)) == (limit, message)


def test_within_budget_output_is_unchanged():
    text = '{{ range $i := until 5 }}{{ $i }}{{ end }} {{ repeat 3 "ab" }} {{ until 125 | len }}'
    assert execute(text, OUTPUT) == "01234 ababab 125"
    tset = Environment(sprig.SPRIG_FUNCS).new_set()
    tset.parse("t", text)
    assert tset.execute("t", None) == "01234 ababab 125"


def test_range_over_int_runs_without_a_list():
    # 10**12 iterations cannot be listed in memory: the loop meets the deadline instead.
    with pytest.raises(RenderLimitExceeded):
        execute("{{ range $i := 1000000000000 }}{{ if eq $i -1 }}x{{ end }}{{ end }}",
                RenderLimits(timeout_s=0.3))


def test_a_render_without_room_for_the_timer_thread_still_stops_at_its_deadline(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Under a tight memory limit no thread stack can be had: the timer is only a prompt.
    import threading

    def no_thread(self: threading.Thread) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Timer, "start", no_thread)
    with pytest.raises(RenderLimitExceeded) as info:
        execute("{{ range 100000000000 }}{{ end }}")
    assert (info.value.limit, str(info.value)) == ("timeout_s", "passed the render timeout of 0.5s")


@pytest.mark.parametrize("call", [
    lambda: random.shuffled(list("a" * 5000)),
    lambda: lists.uniq([[i] for i in range(5000)]),
    lambda: regex.regex_replace_all("a", "a" * 5000, "b"),
    lambda: regex.regex_find_all("a", "a" * 5000, -1),
], ids=["shuffle", "uniq-of-lists", "regexReplaceAll", "regexFindAll"])
def test_a_long_loop_inside_one_function_stops_at_the_deadline(call):
    # shuffle of 30 million characters ran 60 s in one call, uniq of 20000 lists longer (helm:
    # 6 s and 9 s), regexReplaceAll over 20 million matches past 10 s; the CLI's watchdog ended
    # them without naming the chart.
    spent = budget.Budget(LIMITS)
    spent.expired = True
    with budget.active(spent), pytest.raises(RenderLimitExceeded) as info:
        call()
    assert info.value.limit == "timeout_s"
