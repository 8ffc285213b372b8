"""What one render of a chart may use: wall time, CPU time, memory and output.

Charts come from strangers, so every render (loading, values and schema checks, templates)
runs under a :class:`RenderLimits` budget. Two places enforce it:

- the CLI, in its own process (``helm-core template --render-timeout ...``);
- the controller, in worker processes that are killed when they pass a limit
  (:mod:`helm_core.isolation`), so no chart can hang or crash the controller itself.

An admin sets the ceiling; a request may only lower it (:meth:`RenderLimits.lowered`).
Passing a limit raises :class:`RenderLimitExceeded`; a worker dying (a signal, out of
memory) raises :class:`RenderCrashed`. Both name the chart and the cause.
"""
from __future__ import annotations

from helm_core.errors import HelmError
from helm_core.support import patterns
from helm_core.support.records import record, replace

MIB = 1024 * 1024
#: Address space allowed on top of a memory limit for what Python and glibc reserve without
#: using (a malloc arena per thread reserves 64 MiB).
ADDRESS_SPACE_SLACK = 256 * MIB
_DURATION = patterns.on_first_use(r"(\d+(?:\.\d+)?)(ms|s|m|h)")
_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


@record(frozen=True)
class RenderLimits:
    """The budget of one render. The defaults fit every real chart we know by a wide margin:
    the largest public charts render in well under a second and under 200 MiB."""

    timeout_s: float = 30.0
    """Wall-clock seconds for one render (load, values, schema, templates)."""
    cpu_s: float = 20.0
    """CPU seconds for one render."""
    memory_bytes: int = 1024 * MIB
    """Memory one render may grow a process by."""
    output_bytes: int = 64 * MIB
    """Bytes of rendered text (every template's output together)."""

    def __post_init__(self) -> None:
        for name in ("timeout_s", "cpu_s", "memory_bytes", "output_bytes"):
            if not getattr(self, name) > 0:
                raise ValueError(f"render limit {name} must be positive, got {getattr(self, name)!r}")

    def lowered(self, **asked: float | int | None) -> RenderLimits:
        """These limits with the ones ``asked`` lowered; a value above the ceiling (or None)
        keeps the ceiling: a request may lower a limit, never raise it."""
        changes = {name: min(value, getattr(self, name)) for name, value in asked.items()
                   if value is not None}
        return replace(self, **changes) if changes else self


DEFAULT_LIMITS = RenderLimits()


class RenderLimitExceeded(HelmError):
    """A render passed one of its limits; ``limit`` is the field's name (``timeout_s``...)."""

    reason = "RenderLimitExceeded"

    def __init__(self, message: str, *, limit: str) -> None:
        super().__init__(message)
        self.limit = limit


class RenderCrashed(HelmError):
    """The process rendering a chart died (a signal, out of memory) before it answered."""

    reason = "RenderCrashed"


def describe_bytes(n: int) -> str:
    """``1073741824`` -> ``1GiB``; used in limit messages and flags' help."""
    for unit, size in (("GiB", 1024 * MIB), ("MiB", MIB), ("KiB", 1024)):
        if n >= size and n % size == 0:
            return f"{n // size}{unit}"
    return f"{n}B"


def parse_bytes(text: str) -> int:
    """``512Mi``, ``1Gi``, ``1G``, ``1048576`` (Kubernetes quantity suffixes) -> bytes."""
    units = {"Ki": 1024, "Mi": MIB, "Gi": 1024 * MIB, "K": 1000, "M": 1000**2, "G": 1000**3,
             "KiB": 1024, "MiB": MIB, "GiB": 1024 * MIB}
    raw = text.strip()
    for suffix in sorted(units, key=len, reverse=True):
        if raw.endswith(suffix):
            number = raw[: -len(suffix)]
            try:
                value = float(number) * units[suffix]
            except ValueError:
                break
            if value > 0:
                return int(value)
            break
    else:
        if raw.isdigit() and int(raw) > 0:
            return int(raw)
    raise ValueError(f"invalid size {text!r} (want e.g. 512Mi, 1Gi or a number of bytes)")


def parse_duration(text: str) -> float:
    """Seconds of a Go duration as Helm's flags and Flux's fields take them (``30s``,
    ``1m30s``, ``500ms``); a unit is required, as Go's ``time.ParseDuration`` requires."""
    pieces = _DURATION().findall(text)
    if not pieces or "".join(n + u for n, u in pieces) != text:
        raise ValueError(f"invalid duration {text!r} (want e.g. 5m, 90s, 1h30m)")
    return sum(float(n) * _SECONDS[u] for n, u in pieces)


def address_space_in_use() -> int | None:
    """Bytes of virtual memory this process maps now (None where /proc cannot tell)."""
    try:
        # Bytes: a text codec other than UTF-8 (already loaded) is an import in every run, and
        # the process name in this file need not be ASCII.
        with open("/proc/self/status", "rb") as status:
            for line in status:
                if line.startswith(b"VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def address_space_ceiling(memory_bytes: int) -> int | None:
    """The ``RLIMIT_AS`` that lets this process grow by ``memory_bytes`` from now, plus the
    stack of a render thread and :data:`ADDRESS_SPACE_SLACK` (None where unknown)."""
    from helm_core.support import deepstack
    in_use = address_space_in_use()
    return None if in_use is None else in_use + memory_bytes + deepstack.STACK_BYTES + ADDRESS_SPACE_SLACK
