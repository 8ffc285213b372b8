"""The ``test`` action: run a deployed release's ``test`` hooks (``helm test``).

Rules: the hooks are those stored with the newest version, which must be ``deployed``; they run
as every hook does (weights, delete policies, Jobs and Pods waited for); a failing test is a
``HookError`` naming it and its reason. :class:`TestFilters` (helm's ``--filter``, Flux's
``spec.test.filters``) exclude tests by name, or keep only the named ones.

:func:`logs` reads each kept test's Pod log after a run (helm's ``test --logs``, its
``GetPodLogs``): test hooks in run order (weight, then name), each read from the Pod named as
the hook in the release's namespace (so a Job test has none: reading it fails, as in helm),
one at a time so a caller prints each before the next is asked for.

Each test's last run is recorded in the tested version, as ``helm test`` records it in the
release (its hook's ``last_run``, which ``helm status`` prints as the TEST SUITE): a test that
starts is stored ``Running`` at once (helm's ``recordRelease``), and when the run ends, passed or
failed, the version is stored again with each test's phase and end. With filters, the stored
hooks end up in helm's order: those a filter left out first (the excluded ones, then those not
included), then the tests that were kept (:func:`stored_order`).

After an install or upgrade (Flux's ``spec.test``), :func:`after_release` runs them and reports
each test's phase; a failure raises ``TestFailedError`` (remediated like a failed wait) unless
failures are ignored. The first failing test stops the run, as in Helm; tests after it are
reported ``Pending``.
"""
from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from helm_core.action import config, get, hooks, version_events
from helm_core.action import template as template_action
from helm_core.engine import manifests as mf
from helm_core.errors import HelmError, TestFailedError
from helm_core.kube import client as kclient
from helm_core.kube import wait as kwait
from helm_core.storage import release as rel
from helm_core.support.records import field, record


@record(frozen=True)
class TestFilters:
    """Which tests run: none named in ``exclude``, and when ``include`` names any, only those
    (helm's ``ExcludeNameFilter`` then ``IncludeNameFilter``)."""

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()

    def keeps(self, name: str) -> bool:
        return name not in self.exclude and (not self.include or name in self.include)


ALL_TESTS = TestFilters()
NO_LUA_PERMISSIONS = template_action.LuaOptions()
_NOT_NAME = re.compile(r"^!\s?name=")


def filters_from_flags(flags: Sequence[str]) -> TestFilters:
    """helm's ``--filter`` values: ``name=X`` runs X, ``!name=X`` (or ``! name=X``) leaves it
    out, several in one value separated by commas; anything else is ignored, as helm does."""
    include: list[str] = []
    exclude: list[str] = []
    for given in flags:
        for item in given.split(","):  # a string-slice flag (test names hold no commas or quotes)
            if item.startswith("name="):
                include.append(item.removeprefix("name="))
            elif _NOT_NAME.match(item):
                exclude.append(_NOT_NAME.sub("", item, count=1))
    return TestFilters(include=tuple(include), exclude=tuple(exclude))


def filters_from_spec(filters: Sequence[Mapping[str, Any]]) -> TestFilters:
    """Flux's ``spec.test.filters``: ``[{name, exclude}]``."""
    return TestFilters(include=tuple(str(f["name"]) for f in filters if not f.get("exclude")),
                       exclude=tuple(str(f["name"]) for f in filters if f.get("exclude")))


def run(cfg: config.Configuration, name: str, namespace: str, *,
        timeout_s: float = kwait.DEFAULT_TIMEOUT_S, filters: TestFilters = ALL_TESTS,
        observe: hooks.Observer = hooks._unobserved,
        lua: template_action.LuaOptions = NO_LUA_PERMISSIONS) -> list[kclient.ObjectRef]:
    """Run the test hooks of release ``name`` that ``filters`` keep; returns the tests run, in
    order. The version's chart Lua answers ``pre-test`` (whose handlers may change the tests),
    then ``post-test`` or ``failed-test``."""
    release = get.run(cfg, name, namespace)
    if release.status is not rel.Status.DEPLOYED:
        raise HelmError(f'release "{name}" is {release.status.value}, not deployed: '
                        f"nothing to test")
    tests = [h for h in hooks.for_event(hooks.parse(release.hooks), "test") if filters.keeps(h.name)]
    revision = version_events.revision_of(cfg.driver.history(namespace, name), release) if release.extensions else 0
    owner = config.owner(cfg, namespace=namespace, name=name)
    text = hooks.format_hooks(tests)
    record = _RunRecord(cfg, release, observe)
    with version_events.of_version(cfg, release, action="test", revision=revision, text=text,
                                   lua_options=lua) as lua_events:
        lua_events.fire("pre-test")
        if lua_events.text != text:
            tests = hooks.for_event(hooks.parse(lua_events.text), "test")
        try:
            ran = hooks.run(cfg, tests, "test", owner=owner, timeout_s=timeout_s, observe=record.observe)
        except HelmError as exc:
            record.finish(filters, failed=True)
            if isinstance(exc, hooks.HookError):
                lua_events.fire("failed-test")
            raise
        record.finish(filters, failed=False)
        lua_events.fire("post-test")
    return ran


class _RunRecord:
    """The tested version as its tests run (module rules), passing each phase on to ``observe``."""

    def __init__(self, cfg: config.Configuration, release: rel.ReleaseVersion,
                 observe: hooks.Observer) -> None:
        self._cfg, self._release, self._observe = cfg, release, observe
        self._log = hooks.RunLog(cfg, release)

    @property
    def version(self) -> rel.ReleaseVersion:
        return self._log.onto(self._release)

    def observe(self, ref: kclient.ObjectRef, phase: str, message: str) -> None:
        self._log.observe(ref, phase, message)  # stores a test that starts
        self._observe(ref, phase, message)

    def finish(self, filters: TestFilters, *, failed: bool) -> None:
        """Store the runs and helm's order of the hooks; a failed store fails a passed run only
        (helm returns its ``Update``'s error then, and ignores it after a failed test)."""
        version = self.version
        stored = hooks.parse(version.hooks)
        ordered = stored_order(stored, filters)
        if ordered != stored:
            version = version.replace(hooks=hooks.format_hooks(ordered))
        try:
            self._cfg.driver.update(version)
        except HelmError:
            if not failed:
                raise


def stored_order(stored: Sequence[mf.Hook], filters: TestFilters) -> list[mf.Hook]:
    """The release's hooks in the order ``helm test`` stores them after a run with ``filters``
    (its ``ReleaseTesting.Run`` sets the hooks it skipped before the ones it kept): every hook
    excluded by name, then every other one an ``include`` leaves out, then the kept ones;
    unchanged without filters."""
    excluded = [h for h in stored if h.name in filters.exclude]
    left_out = [h for h in stored if h.name not in filters.exclude and not filters.keeps(h.name)]
    return [*excluded, *left_out, *(h for h in stored if filters.keeps(h.name))]


def logs(cfg: config.Configuration, release: rel.ReleaseVersion, namespace: str,
         filters: TestFilters = ALL_TESTS) -> Iterator[tuple[str, str]]:
    """``(test name, its Pod's log)`` of each test of ``release`` that ``filters`` keep, read
    in ``namespace`` (module rules); a Pod that cannot be read raises the client's error."""
    for hook in hooks.for_event(hooks.parse(release.hooks), "test"):
        if filters.keeps(hook.name):
            yield hook.name, cfg.client.pod_logs(namespace, hook.name)


@record(frozen=True)
class TestOptions:
    """Flux's ``spec.test`` (``enable`` is the caller's choice to call at all)."""

    timeout_s: float = kwait.DEFAULT_TIMEOUT_S
    ignore_failures: bool = False
    """A failing test is reported but the release stays as it is (no remediation)."""
    filters: TestFilters = ALL_TESTS
    lua: template_action.LuaOptions = field(default_factory=template_action.LuaOptions)
    """How the version's chart Lua may run (``pre-test``...)."""


@record
class TestResult:
    name: str
    kind: str
    phase: str = "Pending"
    message: str = ""
    started: str = ""
    completed: str = ""


@record
class TestReport:
    """What a test run found, as it goes into a request's ``status.lastTest``."""

    version: str
    results: list[TestResult] = field(default_factory=list)
    error: str = ""
    started: str = ""
    completed: str = ""
    test_hooks: dict[str, dict[str, str]] = field(default_factory=dict)
    """Flux's ``Snapshot.testHooks`` of the tested version: :func:`test_hooks` after the run."""

    @property
    def phase(self) -> str:
        if self.error:
            return "Failed"
        return "Succeeded"

    def failure(self, release_name: str) -> str:
        """The words of the failure (the ``TestFailedError`` raised when not ignored)."""
        return f"test hooks of release {release_name} failed: {self.error}"

    def summary(self) -> dict[str, Any]:
        return {"version": self.version, "phase": self.phase, "startedAt": self.started,
                "completedAt": self.completed, **({"message": self.error} if self.error else {}),
                "hooks": [{"name": r.name, "kind": r.kind, "phase": r.phase,
                           **({"message": r.message} if r.message else {}),
                           **({"startedAt": r.started} if r.started else {}),
                           **({"completedAt": r.completed} if r.completed else {})}
                          for r in self.results]}


def test_hooks(version: rel.ReleaseVersion) -> dict[str, dict[str, str]]:
    """Every test hook of ``version`` by name with its recorded last run, as Flux's
    ``status.history[].testHooks`` holds them: ``lastStarted``, ``lastCompleted`` (RFC 3339)
    and ``phase``, each only when known (a test never run is ``{}``)."""
    found: dict[str, dict[str, str]] = {}
    for hook in hooks.for_event(hooks.parse(version.hooks), "test"):
        last = version.last_run(hook.kind, hook.name)
        found[hook.name] = {} if last is None else {
            key: value for key, value in (("lastStarted", kclient.kube_time(last.started)),
                                          ("lastCompleted", kclient.kube_time(last.completed)),
                                          ("phase", last.phase.value)) if value}
    return found


def failed_tests(version: rel.ReleaseVersion) -> bool:
    """True when a test of ``version`` last ran and failed (Flux's ``HasTestInPhase(Failed)``:
    such a version is no rollback target unless test failures are ignored)."""
    return any(run.get("phase") == rel.HookPhase.FAILED.value for run in test_hooks(version).values())


def _now() -> str:
    return kclient.kube_time(rel.now())


def after_release(cfg: config.Configuration, release: rel.ReleaseVersion,
                  options: TestOptions) -> TestReport:
    """Run ``release``'s tests (module rules); raises ``TestFailedError`` carrying the report's
    summary when one fails and failures are not ignored."""
    planned = [h for h in hooks.for_event(hooks.parse(release.hooks), "test") if options.filters.keeps(h.name)]
    report = TestReport(version=str(release.version), started=_now(),
                        results=[TestResult(name=h.name, kind=h.kind) for h in planned])
    by_name = {(r.kind, r.name): r for r in report.results}

    def observe(ref: kclient.ObjectRef, phase: str, message: str) -> None:
        result = by_name.get((ref.kind, ref.name))
        if result is None:
            return
        result.phase, result.message = phase, message
        if phase == "Running":
            result.started = _now()
        else:
            result.completed = _now()

    try:
        run(cfg, release.name, release.namespace, timeout_s=options.timeout_s, filters=options.filters,
            observe=observe, lua=options.lua)
    except hooks.HookError as exc:
        report.error = str(exc).rstrip("\n")  # helm's multierror list, without its blank lines after
    report.completed = _now()
    report.test_hooks = test_hooks(get.run(cfg, release.name, release.namespace, release.version))
    cfg.log(f"tests of {release.name} {report.phase.lower()}: {len(report.results)} test(s)")
    if report.error and not options.ignore_failures:
        raise TestFailedError(report.failure(release.name),
                              summary=report.summary())
    return report
