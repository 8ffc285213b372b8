"""Micro-benchmark of the Go template engine: parse+compile and execute a ~300-line template.

Run: .venv/bin/python bench/gotemplate_micro.py  (prints figures; asserts nothing)
"""
from __future__ import annotations

import statistics
import time

from helm_core.gotemplate import Environment
from helm_core.golib.gotypes import signature

BLOCK = """\
{{- define "bench.labels%(i)d" }}
app: {{ .Values.name }}
tier: {{ index .Values.labels "tier" | printf "%%q" }}
{{- end }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Values.name }}-%(i)d
  labels:
    {{- template "bench.labels%(i)d" . }}
spec:
  replicas: {{ .Values.replicas }}
  template:
    spec:
      containers:
      {{- range $i, $c := .Values.containers }}
        - name: {{ $c.name }}
          image: "{{ $c.image }}:{{ $c.tag | default "latest" }}"
          {{- if $c.ports }}
          ports:
          {{- range $c.ports }}
            - containerPort: {{ . }}
          {{- end }}
          {{- end }}
          env:
          {{- range $k, $v := $.Values.env }}
            - name: {{ $k }}
              value: {{ printf "%%v" $v | quote }}
          {{- end }}
      {{- end }}
      {{- with .Values.nodeSelector }}
      nodeSelector: {{ . }}
      {{- else }}
      nodeSelector: {}
      {{- end }}
      {{- if and .Values.enabled (gt (len .Values.containers) 1) }}
      enabled: true
      {{- end }}
---
"""

VALUES = {
    "name": "web",
    "replicas": 3.0,
    "enabled": True,
    "labels": {"tier": "front"},
    "containers": [
        {"name": f"c{i}", "image": "nginx", "tag": "1.25" if i % 2 else None, "ports": [80.0, 443.0]}
        for i in range(3)
    ],
    "env": {f"K{i}": f"v{i}" for i in range(5)},
    "nodeSelector": None,
}


@signature("interface {}", "interface {}")
def default(d: object, v: object) -> object:
    return v if v else d


@signature("interface {}", variadic=True)
def quote(*args: object) -> str:
    return " ".join('"' + str(a) + '"' for a in args if a is not None)


FUNCS = {"default": default, "quote": quote}


def main() -> None:
    text = "".join(BLOCK % {"i": i} for i in range(9))
    lines = text.count("\n")
    compile_times = []
    for _ in range(20):
        env = Environment(FUNCS)
        t0 = time.perf_counter()
        env.new_set().parse("bench.yaml", text)
        compile_times.append(time.perf_counter() - t0)
    tset = Environment(FUNCS).new_set()
    tset.parse("bench.yaml", text)
    data = {"Values": VALUES}
    out = tset.execute("bench.yaml", data)
    exec_times = []
    for _ in range(200):
        t0 = time.perf_counter()
        tset.execute("bench.yaml", data)
        exec_times.append(time.perf_counter() - t0)
    print(f"template: {lines} lines, {len(text)} chars; output {out.count(chr(10))} lines")
    print(f"parse+compile: median {statistics.median(compile_times) * 1e3:.2f} ms (min {min(compile_times) * 1e3:.2f})")
    print(f"execute:       median {statistics.median(exec_times) * 1e3:.3f} ms (min {min(exec_times) * 1e3:.3f})")


if __name__ == "__main__":
    main()
