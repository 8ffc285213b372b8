"""Build the control-plane binaries from the pinned Go modules in ``e2e/cluster/gotools/``.

Rules:
- Each tool group is its own Go module (``gotools/<group>/go.mod`` + ``tools.go``, build tag
  ``tools``) so every tool links the dependency set its authors tested: one shared module would
  force a single version of etcd, gRPC and client-go on all of them (Kubernetes 1.37 pulls
  etcd 3.7 libraries, which would silently replace the pinned 3.6 server).
- Binaries land in ``<cache>/<hash>/bin`` where ``<hash>`` covers every go.mod, go.sum, ldflag
  and build setting; a pin change means a new folder, an unchanged pin set means no build.
  ``<cache>`` is ``$HELM_CONTROLLER_TOOLS_DIR`` or ``~/.cache/helm-controller/tools``.
- A build prints progress (the group, packages compiled, elapsed time) and writes a full log per
  group; a failure raises ``ToolBuildError`` naming the tool with the log's last lines.
- Concurrent builds of the same pins are serialised with a file lock; binaries are written
  under a temporary name and renamed, so a killed build never leaves a half binary behind.
"""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from e2e.cluster import errors

TOOLS_SRC = Path(__file__).resolve().parent / "gotools"
CACHE_ENV = "HELM_CONTROLLER_TOOLS_DIR"
DEFAULT_CACHE = Path("~/.cache/helm-controller/tools")
RECIPE_VERSION = "1"
"""Bump when the way binaries are built changes without a pin changing."""
PROGRESS_EVERY_S = 15.0
"""Seconds between progress lines while ``go build`` runs."""
LOG_TAIL_LINES = 40
"""Lines of a failed build's log shown in the error."""

KUBE_VERSION = "v1.37.2"
KUBE_MAJOR, KUBE_MINOR = "1", "37"
HELM_VERSION = "v3.22.0"
ETCD_VERSION = "v3.6.16"
KWOK_VERSION = "v0.8.0"


def _kube_version_ldflags() -> tuple[str, ...]:
    """The ``-X`` flags Kubernetes' hack/lib/version.sh sets, so servers report their version."""
    values = {
        "gitVersion": KUBE_VERSION,
        "gitMajor": KUBE_MAJOR,
        "gitMinor": KUBE_MINOR,
        "gitTreeState": "clean",
    }
    flags: list[str] = []
    for package in ("k8s.io/component-base/version", "k8s.io/client-go/pkg/version"):
        flags += [f"-X={package}.{key}={value}" for key, value in values.items()]
    return tuple(flags)


@dataclass(frozen=True)
class ToolGroup:
    """One pinned Go module and the binaries built from it with one ``go build``."""

    module: str
    """Folder under ``gotools/`` holding go.mod, go.sum and tools.go."""
    binaries: tuple[tuple[str, str], ...]
    """(binary name, Go package path) pairs."""
    ldflags: tuple[str, ...]


STRIP = ("-s", "-w")
GROUPS: tuple[ToolGroup, ...] = (
    ToolGroup(
        module="etcd",
        binaries=(("etcd", "go.etcd.io/etcd/server/v3"),),
        ldflags=STRIP,
    ),
    ToolGroup(
        module="kube",
        binaries=(
            ("kube-apiserver", "k8s.io/kubernetes/cmd/kube-apiserver"),
            ("kube-controller-manager", "k8s.io/kubernetes/cmd/kube-controller-manager"),
            ("kube-scheduler", "k8s.io/kubernetes/cmd/kube-scheduler"),
        ),
        ldflags=STRIP + _kube_version_ldflags(),
    ),
    ToolGroup(
        module="kwok",
        binaries=(("kwok", "sigs.k8s.io/kwok/cmd/kwok"),),
        ldflags=STRIP
        + (
            f"-X=sigs.k8s.io/kwok/pkg/consts.Version={KWOK_VERSION}",
            f"-X=sigs.k8s.io/kwok/pkg/consts.KubeVersion={KUBE_VERSION.lstrip('v')}",
        ),
    ),
    ToolGroup(
        module="helm",
        binaries=(("helm", "helm.sh/helm/v3/cmd/helm"),),
        ldflags=STRIP
        + (
            f"-X=helm.sh/helm/v3/internal/version.version={HELM_VERSION}",
            f"-X=helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor={KUBE_MAJOR}",
            f"-X=helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor={KUBE_MINOR}",
            f"-X=helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor={KUBE_MAJOR}",
            f"-X=helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor={KUBE_MINOR}",
        ),
    ),
    ToolGroup(  # OCI registry for the chart-source tests (tests/sources)
        module="registry",
        binaries=(("registry", "github.com/distribution/distribution/v3/cmd/registry"),),
        ldflags=STRIP + ("-X=github.com/distribution/distribution/v3/version.version=v3.1.1",),
    ),
)
BUILD_ENV = {"CGO_ENABLED": "0", "GOFLAGS": "-buildvcs=false"}
"""Static binaries, as the upstream release builds make them; no VCS stamping of our repo."""

BINARIES: tuple[str, ...] = tuple(name for group in GROUPS for name, _ in group.binaries)
KWOK_STAGES_FILE = "kwok-stages.yaml"
"""Installed next to the binaries: kwok's own stage definitions, the ones ``kwokctl`` uses by
default (fast node start, lease heartbeats, fast pod lifecycle), read from the pinned module."""
KWOK_STAGE_SOURCES = (
    "kustomize/stage/node/fast/node-initialize.yaml",
    "kustomize/stage/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml",
    "kustomize/stage/pod/fast/pod-ready.yaml",
    "kustomize/stage/pod/fast/pod-complete.yaml",
    "kustomize/stage/pod/fast/pod-delete.yaml",
)


def pins_hash(groups: tuple[ToolGroup, ...] = GROUPS, src: Path = TOOLS_SRC) -> str:
    """Hash of everything that decides the binaries' content: pins, ldflags, build settings."""
    digest = hashlib.sha256(f"recipe={RECIPE_VERSION}\n".encode())
    for key, value in sorted(BUILD_ENV.items()):
        digest.update(f"env {key}={value}\n".encode())
    for group in groups:
        digest.update(f"group {group.module} {group.binaries} {group.ldflags}\n".encode())
        for name in ("go.mod", "go.sum", "tools.go"):
            digest.update(name.encode() + b"\0" + (src / group.module / name).read_bytes())
    return digest.hexdigest()[:16]


def cache_root(environ: dict[str, str] | None = None) -> Path:
    """The folder holding one ``<hash>/`` per pin set; ``$HELM_CONTROLLER_TOOLS_DIR`` wins."""
    env = os.environ if environ is None else environ
    return Path(env.get(CACHE_ENV) or DEFAULT_CACHE).expanduser()


def bin_dir(environ: dict[str, str] | None = None) -> Path:
    """Where the binaries for the current pins are (or will be) installed."""
    return cache_root(environ) / pins_hash() / "bin"


def missing_binaries(directory: Path | None = None) -> list[str]:
    """Names of the tools not yet built for the current pins."""
    directory = bin_dir() if directory is None else directory
    missing = [name for name in BINARIES if not os.access(directory / name, os.X_OK)]
    if not (directory / KWOK_STAGES_FILE).is_file():
        missing.append(KWOK_STAGES_FILE)
    return missing


def go_binary() -> str | None:
    """The ``go`` command: ``$GO`` when set (and only it), else PATH, else /usr/local/go/bin."""
    explicit = os.environ.get("GO")
    candidates = [explicit] if explicit else [shutil.which("go"), "/usr/local/go/bin/go"]
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def build(*, out: Callable[[str], None] = print, force: bool = False) -> Path:
    """Build every missing tool for the current pins and return the bin folder.

    Idempotent: with all binaries present it only checks and returns. ``force`` rebuilds all.
    """
    target = bin_dir()
    if not force and not missing_binaries(target):
        return target
    go = go_binary()
    if go is None:
        raise errors.ToolsMissingError(
            f"the control-plane binaries are not built in {target} and no Go toolchain was "
            f"found (set $GO or put go on PATH)"
        )
    target.mkdir(parents=True, exist_ok=True)
    with _locked(target.parent / ".lock"):
        for group in GROUPS:
            names = [name for name, _ in group.binaries]
            if not force and all(os.access(target / n, os.X_OK) for n in names):
                out(f"[tools] {', '.join(names)}: up to date")
                continue
            _build_group(go, group, target, out)
        if force or not (target / KWOK_STAGES_FILE).is_file():
            _install_kwok_stages(go, target)
    return target


def _install_kwok_stages(go: str, target: Path) -> None:
    """Copy kwok's stage YAML from the pinned module into one multi-document file."""
    found = subprocess.run([go, "list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/kwok"],
                           cwd=TOOLS_SRC / "kwok", capture_output=True, text=True)
    if found.returncode != 0 or not found.stdout.strip():
        raise errors.ToolBuildError("kwok stages", found.stderr.strip())
    module_dir = Path(found.stdout.strip())
    documents = [(module_dir / source).read_text().strip() for source in KWOK_STAGE_SOURCES]
    temporary = target / f".{KWOK_STAGES_FILE}.tmp"
    temporary.write_text("\n---\n".join(documents) + "\n")
    os.replace(temporary, target / KWOK_STAGES_FILE)


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _build_group(go: str, group: ToolGroup, target: Path, out: Callable[[str], None]) -> None:
    staging = target.parent / f".build-{group.module}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    log_path = target.parent / "logs" / f"{group.module}.log"
    log_path.parent.mkdir(exist_ok=True)
    log_path.write_text("")
    for name, package in group.binaries:
        _build_one(go, group, name, package, staging / name, log_path, out)
    for name, _ in group.binaries:
        os.replace(staging / name, target / name)
    shutil.rmtree(staging, ignore_errors=True)


def _build_one(go: str, group: ToolGroup, name: str, package: str, output: Path,
               log_path: Path, out: Callable[[str], None]) -> None:
    """One ``go build`` with progress lines; the shared build cache makes siblings cheap."""
    command = [go, "build", "-v", "-trimpath", "-o", str(output),
               f"-ldflags={' '.join(group.ldflags)}", package]
    env = {**os.environ, **BUILD_ENV}
    out(f"[tools] building {name} (log: {log_path})")
    started = time.monotonic()
    with open(log_path, "a") as log:
        log.write("$ " + " ".join(command) + "\n")
        log.flush()
        before = _count_lines(log_path)
        process = subprocess.Popen(command, cwd=TOOLS_SRC / group.module, env=env,
                                   stdout=log, stderr=subprocess.STDOUT)
        last = started
        while process.poll() is None:
            time.sleep(0.5)
            now = time.monotonic()
            if now - last >= PROGRESS_EVERY_S:
                last = now
                out(f"[tools] {name}: {_count_lines(log_path) - before} packages compiled, "
                    f"{now - started:.0f}s")
    if process.returncode != 0:
        tail = "\n".join(log_path.read_text(errors="replace").splitlines()[-LOG_TAIL_LINES:])
        raise errors.ToolBuildError(name, tail)
    out(f"[tools] built {name} in {time.monotonic() - started:.0f}s")


def _count_lines(path: Path) -> int:
    with open(path, "rb") as handle:
        return sum(1 for _ in handle)


def main_build(argv_force: bool = False) -> int:
    """Body of ``python -m e2e.cluster build``: progress on stderr, bin folder last on stdout."""
    def err(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    try:
        directory = build(out=err, force=argv_force)
    except errors.HarnessError as exc:
        err(f"error: {exc}")
        return 1
    print(directory, flush=True)
    return 0
