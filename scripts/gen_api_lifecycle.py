"""Regenerate helm_core/cli/api_lifecycle.py: the lifecycle of the Kubernetes API types helm's lint knows.

``helm lint`` warns about an object whose type is deprecated (``pkg/lint/rules/deprecations.go``):
it builds the object from client-go's scheme (``kscheme.AddToScheme`` into a new scheme; kinds
the scheme lacks are never deprecated) and asks apiserver's ``deprecation.IsDeprecated`` and
``WarningMessage``, which read the methods k8s.io/api generates per type in
``zz_generated.prerelease-lifecycle.go`` (``APILifecycleIntroduced/Deprecated/Removed/Replacement``).

This script builds a small Go program against the k8s.io/client-go and k8s.io/api versions the
given helm release requires (read from helm's go.mod), lets it walk that very scheme and call
those methods, and writes the answers as a Python table. Run by a developer when helm moves:
``python scripts/gen_api_lifecycle.py [HELM_VERSION]`` (needs ``go`` on PATH and the module proxy).
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

HELM_MODULE = "helm.sh/helm/v3"
DEFAULT_HELM_VERSION = "v3.22.0"
OUTPUT = Path(__file__).resolve().parent.parent / "helm_core" / "cli" / "api_lifecycle.py"

_PROGRAM = r"""
package main

import (
	"encoding/json"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kscheme "k8s.io/client-go/kubernetes/scheme"
)

type introduced interface{ APILifecycleIntroduced() (int, int) }
type deprecated interface{ APILifecycleDeprecated() (int, int) }
type removed interface{ APILifecycleRemoved() (int, int) }
type replacement interface{ APILifecycleReplacement() schema.GroupVersionKind }

type entry struct {
	Group, Version, Kind string
	Introduced, Deprecated, Removed [2]int
	Replacement [3]string
}

func main() {
	scheme := runtime.NewScheme() // as helm's resourceToRuntimeObject builds it
	if err := kscheme.AddToScheme(scheme); err != nil { panic(err) }
	out := []entry{}
	for gvk := range scheme.AllKnownTypes() {
		obj, err := scheme.New(gvk)
		if err != nil { panic(err) }
		e := entry{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind}
		known := false
		if o, ok := obj.(introduced); ok { e.Introduced[0], e.Introduced[1] = o.APILifecycleIntroduced(); known = true }
		if o, ok := obj.(deprecated); ok { e.Deprecated[0], e.Deprecated[1] = o.APILifecycleDeprecated(); known = true }
		if o, ok := obj.(removed); ok { e.Removed[0], e.Removed[1] = o.APILifecycleRemoved(); known = true }
		if o, ok := obj.(replacement); ok {
			r := o.APILifecycleReplacement()
			e.Replacement = [3]string{r.Group, r.Version, r.Kind}
			known = true
		}
		if known { out = append(out, e) }
	}
	json.NewEncoder(os.Stdout).Encode(out)
}
"""


def _go(*argv: str, cwd: str | None = None) -> str:
    return subprocess.run(["go", *argv], cwd=cwd, check=True, capture_output=True, text=True).stdout


def required_versions(helm_version: str) -> dict[str, str]:
    """The k8s.io modules helm's go.mod requires at ``helm_version`` (module -> version)."""
    info = json.loads(_go("mod", "download", "-json", f"{HELM_MODULE}@{helm_version}"))
    wanted = {}
    for line in Path(info["GoMod"]).read_text().splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0] in ("k8s.io/api", "k8s.io/apimachinery", "k8s.io/client-go"):
            wanted[parts[0]] = parts[1]
    return wanted


def lifecycle_entries(modules: dict[str, str]) -> list[dict[str, object]]:
    with tempfile.TemporaryDirectory() as folder:
        requires = "".join(f"\t{name} {version}\n" for name, version in sorted(modules.items()))
        Path(folder, "go.mod").write_text(f"module gen\n\ngo 1.24\n\nrequire (\n{requires})\n")
        Path(folder, "main.go").write_text(_PROGRAM)
        _go("mod", "tidy", cwd=folder)
        tidy = Path(folder, "go.mod").read_text()
        for name, version in modules.items():  # tidy may not raise them: the table is of these versions
            if f"{name} {version}" not in tidy:
                raise SystemExit(f"go mod tidy moved {name} off {version}:\n{tidy}")
        entries: list[dict[str, object]] = json.loads(_go("run", ".", cwd=folder))
    return entries


def render(entries: list[dict[str, object]], helm_version: str, modules: dict[str, str]) -> str:
    lines = []
    for e in sorted(entries, key=lambda e: (str(e["Group"]), str(e["Version"]), str(e["Kind"]))):
        introduced, deprecated, removed = (tuple(e[k]) for k in ("Introduced", "Deprecated", "Removed"))  # type: ignore[call-overload]
        replacement = tuple(e["Replacement"])  # type: ignore[call-overload]
        key = repr((e["Group"], e["Version"], e["Kind"]))
        value = repr((introduced, deprecated, removed, replacement if any(replacement) else None))
        line = f"    {key}: {value},"
        lines.append(line if len(line) <= 120 else f"    {key}:\n        {value},")
    sources = ", ".join(f"{name} {version}" for name, version in sorted(modules.items()))
    return (
        '"""The lifecycle of the Kubernetes API types helm\'s lint can decode: generated by\n'
        f"``scripts/gen_api_lifecycle.py {helm_version}``; do not edit.\n\n"
        f"Source: the types registered by client-go's scheme, as {HELM_MODULE} {helm_version} requires it:\n"
        f"{sources}.\n"
        "Each type was asked its ``APILifecycleIntroduced/Deprecated/Removed/Replacement`` methods\n"
        "(k8s.io/api's ``zz_generated.prerelease-lifecycle.go``). Types without those methods are\n"
        "absent; ``(0, 0)`` is a method naming no release, as Go returns it.\n"
        '"""\n\n'
        f"K8S_API_VERSION = {modules.get('k8s.io/api', '')!r}\n"
        "#: (group, version, kind) -> (introduced, deprecated, removed, replacement (group, version, kind)\n"
        "#: or None); releases as (major, minor).\n"
        "LIFECYCLE: dict[tuple[str, str, str],\n"
        "                tuple[tuple[int, int], tuple[int, int], tuple[int, int], tuple[str, str, str] | None]] = {\n"
        + "\n".join(lines) + "\n}\n")


def main() -> None:
    helm_version = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_HELM_VERSION
    modules = required_versions(helm_version)
    OUTPUT.write_text(render(lifecycle_entries(modules), helm_version, modules))
    print(f"wrote {OUTPUT}")


if __name__ == "__main__":
    main()
