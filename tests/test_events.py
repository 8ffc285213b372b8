"""The action-level emitter: core events have one implementation, optional ones run
their handlers in weight order, chart Lua included."""
from __future__ import annotations

import pytest

from helm_core.action import events

from helm_core import lua
from tests.lua import luakit


def _append(tag):
    return lambda ctx: ctx + [tag]


def test_optional_handlers_run_in_weight_then_registration_order():
    em: events.Emitter[list[str]] = events.Emitter()
    em.on("pre-render", _append("late"), weight=1)
    em.on("pre-render", _append("mid-a"))
    em.on("pre-render", _append("early"), weight=0)
    em.on("pre-render", _append("mid-b"))
    assert em.emit("pre-render", []) == ["early", "mid-a", "mid-b", "late"]


def test_optional_event_without_handlers_returns_context():
    em: events.Emitter[list[str]] = events.Emitter()
    ctx: list[str] = []
    assert em.emit("post-install", ctx) is ctx


def test_core_event_runs_its_one_implementation():
    em: events.Emitter[list[str]] = events.Emitter()
    em.set_core("render", _append("rendered"))
    assert em.emit("render", ["x"]) == ["x", "rendered"]


@pytest.mark.parametrize(("action", "message", "exc"), [
    (lambda em: em.emit("install", []), "core event 'install' has no implementation", LookupError),
    (lambda em: (em.set_core("render", _append("a")), em.set_core("render", _append("b"))),
     "core event 'render' already has an implementation", ValueError),
    (lambda em: em.on("render", _append("a")), "core event 'render' takes one implementation (set_core), not handlers",
     ValueError),
    (lambda em: em.set_core("pre-render", _append("a")), "'pre-render' is not a core event", ValueError),
    (lambda em: em.on("pre-render", _append("a"), weight=2), "handler weight must be from 0 to 1, got 2", ValueError),
], ids=["core-missing", "core-twice", "handler-on-core", "core-not-core", "bad-weight"])
def test_misuse_is_refused(action, message, exc):
    with pytest.raises(exc, match=message.replace("(", r"\(").replace(")", r"\)")):
        action(events.Emitter())


def test_chart_lua_is_an_optional_handler_between_internal_ones():
    c = luakit.chart("top", lua_files={"chart": luakit.handler("pre-render", "_.values.trace = _.values.trace .. 'lua;'")})
    em: events.Emitter[lua.EventContext] = events.Emitter()

    def internal(tag):
        return lambda ctx: lua.EventContext(release=ctx.release, values={"trace": ctx.values["trace"] + tag},
                                            templates=ctx.templates)

    em.on("pre-render", internal("first;"), weight=0)
    em.on("pre-render", internal("last;"), weight=1)
    with luakit.load(c) as scripts:
        events.attach_chart_scripts(em, scripts, lua.ACTIONS["template"])
        ctx = em.emit("pre-render", luakit.context(c, {"trace": ""}))
    assert ctx.values["trace"] == "first;lua;last;"
