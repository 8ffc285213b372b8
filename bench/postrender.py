"""Cost of post-renderers on a large release.

Usage: ``python bench/postrender.py [--objects N] [--runs R]``. Prints, per configuration, the
median time to post-render N Deployments (a strategic merge patch adding an env var and a
volume mount to every container by target, a JSON 6902 label patch, an image override, common
labels), and the per-object cost. No goal: a render of the same release costs far more.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from helm_core.engine import postrender  # noqa: E402


def deployment(i: int) -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": f"web-{i}", "labels": {"app": "web", "i": str(i)}},
            "spec": {"replicas": 1, "template": {"spec": {
                "containers": [{"name": f"c{j}", "image": "docker.io/nginx:1.0",
                                "env": [{"name": f"E{k}", "value": str(k)} for k in range(10)],
                                "volumeMounts": [{"name": "data", "mountPath": "/data"}],
                                "ports": [{"containerPort": 80 + j}]} for j in range(3)],
                "volumes": [{"name": "data", "emptyDir": {}}]}}}}


CONFIGS = {
    "strategic merge (targeted)": ([{"kustomize": {"patches": [{"target": {"kind": "Deployment"}, "patch": (
        "spec:\n  template:\n    spec:\n      containers:\n      - name: c0\n        env:\n"
        "        - {name: EXTRA, value: x}\n        volumeMounts:\n        - {name: cache, mountPath: /cache}\n")}]}}], None),
    "json 6902 (targeted)": ([{"kustomize": {"patches": [{"target": {"kind": "Deployment"},
                                                          "patch": "- {op: add, path: /metadata/labels/env, value: prod}"}]}}], None),
    "images": ([{"kustomize": {"images": [{"name": "docker.io/nginx", "newTag": "1.27"}]}}], None),
    "commonMetadata": (None, {"labels": {"team": "x"}, "annotations": {"owner": "y"}}),
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--objects", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    objects = [deployment(i) for i in range(args.objects)]
    for label, (renderers, meta) in CONFIGS.items():
        options = postrender.from_spec(renderers, meta)
        times = []
        for _ in range(args.runs):
            started = time.perf_counter()
            postrender.run(objects, options, namespace="default")
            times.append(time.perf_counter() - started)
        median = statistics.median(times)
        print(f"{label:28s} {args.objects} objects: {median * 1000:8.1f} ms "
              f"({median / args.objects * 1e6:6.1f} us/object)")


if __name__ == "__main__":
    main()
