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
from helm_core.records import record, replace

MIB = 1024 * 1024


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
