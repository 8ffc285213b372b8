"""``helm-core create``: a new chart folder, from helm-core's own scaffold or a starter.

The scaffold is helm-core's (a Deployment, a Service, a ServiceAccount, notes and a test
hook), laid out as ``helm create`` lays a chart out; it renders and lints cleanly with both
helm and helm-core. A starter (``--starter``) is a chart folder copied with ``<CHARTNAME>``
replaced by the new chart's name, as helm does.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

from helm_core.errors import HelmError

PLACEHOLDER = "<CHARTNAME>"

_CHART_YAML = """apiVersion: v2
name: <CHARTNAME>
description: A new chart to fill in
# application charts make releases; library charts only lend templates to other charts.
type: application
# The chart's own version (semver), bumped with every change to the chart.
version: 0.1.0
# The version of the software the chart deploys.
appVersion: "1.27.0"
"""

_VALUES = """# Default values of <CHARTNAME>; override them with -f FILE or --set key=value.
replicaCount: 1

image:
  repository: nginx
  pullPolicy: IfNotPresent
  # empty: the chart's appVersion
  tag: ""

imagePullSecrets: []
nameOverride: ""
fullnameOverride: ""

serviceAccount:
  create: true
  automount: true
  annotations: {}
  # empty: a name made from the release's full name
  name: ""

podAnnotations: {}
podLabels: {}

service:
  type: ClusterIP
  port: 80

resources: {}

nodeSelector: {}
tolerations: []
affinity: {}
"""

_HELMIGNORE = """# Files left out of the package (one pattern a line, as .gitignore).
.DS_Store
.git/
.gitignore
.hg/
.svn/
*.swp
*.bak
*.tmp
*.orig
*~
.idea/
.vscode/
"""

_HELPERS = """{{/* The chart's name, 63 characters at most (DNS label limit). */}}
{{- define "<CHARTNAME>.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The full name of the release's objects: the release name, with the chart name unless the
release name already holds it; 63 characters at most.
*/}}
{{- define "<CHARTNAME>.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* chart-version, for the helm.sh/chart label. */}}
{{- define "<CHARTNAME>.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels of every object. */}}
{{- define "<CHARTNAME>.labels" -}}
helm.sh/chart: {{ include "<CHARTNAME>.chart" . }}
{{ include "<CHARTNAME>.selectorLabels" . }}
{{- if .Chart.AppVersion }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* Labels that select the pods. */}}
{{- define "<CHARTNAME>.selectorLabels" -}}
app.kubernetes.io/name: {{ include "<CHARTNAME>.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* The ServiceAccount the pods run as. */}}
{{- define "<CHARTNAME>.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "<CHARTNAME>.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}
"""

_DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "<CHARTNAME>.fullname" . }}
  labels:
    {{- include "<CHARTNAME>.labels" . | nindent 4 }}
spec:
  replicas: {{ .Values.replicaCount }}
  selector:
    matchLabels:
      {{- include "<CHARTNAME>.selectorLabels" . | nindent 6 }}
  template:
    metadata:
      {{- with .Values.podAnnotations }}
      annotations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      labels:
        {{- include "<CHARTNAME>.labels" . | nindent 8 }}
        {{- with .Values.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      {{- with .Values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      serviceAccountName: {{ include "<CHARTNAME>.serviceAccountName" . }}
      containers:
        - name: {{ .Chart.Name }}
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"
          imagePullPolicy: {{ .Values.image.pullPolicy }}
          ports:
            - name: http
              containerPort: {{ .Values.service.port }}
              protocol: TCP
          livenessProbe:
            httpGet:
              path: /
              port: http
          readinessProbe:
            httpGet:
              path: /
              port: http
          {{- with .Values.resources }}
          resources:
            {{- toYaml . | nindent 12 }}
          {{- end }}
      {{- with .Values.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
"""

_SERVICE = """apiVersion: v1
kind: Service
metadata:
  name: {{ include "<CHARTNAME>.fullname" . }}
  labels:
    {{- include "<CHARTNAME>.labels" . | nindent 4 }}
spec:
  type: {{ .Values.service.type }}
  ports:
    - port: {{ .Values.service.port }}
      targetPort: http
      protocol: TCP
      name: http
  selector:
    {{- include "<CHARTNAME>.selectorLabels" . | nindent 4 }}
"""

_SERVICE_ACCOUNT = """{{- if .Values.serviceAccount.create -}}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ include "<CHARTNAME>.serviceAccountName" . }}
  labels:
    {{- include "<CHARTNAME>.labels" . | nindent 4 }}
  {{- with .Values.serviceAccount.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
automountServiceAccountToken: {{ .Values.serviceAccount.automount }}
{{- end }}
"""

_NOTES = """{{ .Chart.Name }} is installed as release {{ .Release.Name }} in namespace {{ .Release.Namespace }}.

Reach it from your machine:
  kubectl --namespace {{ .Release.Namespace }} port-forward service/{{ include "<CHARTNAME>.fullname" . }} 8080:{{ .Values.service.port }}
  then open http://127.0.0.1:8080/
"""

_TEST = """apiVersion: v1
kind: Pod
metadata:
  name: "{{ include "<CHARTNAME>.fullname" . }}-test-connection"
  labels:
    {{- include "<CHARTNAME>.labels" . | nindent 4 }}
  annotations:
    "helm.sh/hook": test
spec:
  containers:
    - name: wget
      image: busybox
      command: ['wget']
      args: ['{{ include "<CHARTNAME>.fullname" . }}:{{ .Values.service.port }}']
  restartPolicy: Never
"""

SCAFFOLD = {
    "Chart.yaml": _CHART_YAML,
    "values.yaml": _VALUES,
    ".helmignore": _HELMIGNORE,
    "templates/_helpers.tpl": _HELPERS,
    "templates/deployment.yaml": _DEPLOYMENT,
    "templates/service.yaml": _SERVICE,
    "templates/serviceaccount.yaml": _SERVICE_ACCOUNT,
    "templates/NOTES.txt": _NOTES,
    "templates/tests/test-connection.yaml": _TEST,
}


def _check_target(target: Path) -> str:
    if target.exists() and not target.is_dir():
        raise HelmError(f"file {target} already exists and is not a directory")
    name = target.resolve().name
    if not name or name in (".", ".."):
        raise HelmError(f"chart name {str(target)!r} is not a name")
    return name


def create(target: Path) -> Path:
    """Write the scaffold for a chart named after ``target``'s last folder."""
    name = _check_target(target)
    for rel, text in SCAFFOLD.items():
        path = target / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.replace(PLACEHOLDER, name), encoding="utf-8")
    (target / "charts").mkdir(exist_ok=True)
    return target


def create_from(starter: Path, target: Path) -> Path:
    """Copy the starter chart ``starter`` to ``target``, ``<CHARTNAME>`` replaced."""
    name = _check_target(target)
    if not (starter / "Chart.yaml").is_file():
        raise HelmError(f"{starter}: not a starter chart (no Chart.yaml)")
    for source in sorted(starter.rglob("*")):
        rel = source.relative_to(starter)
        dest = target / rel
        if source.is_dir():
            dest.mkdir(parents=True, exist_ok=True)
            continue
        dest.parent.mkdir(parents=True, exist_ok=True)
        data = source.read_bytes()
        try:
            dest.write_text(data.decode("utf-8").replace(PLACEHOLDER, name), encoding="utf-8")
        except UnicodeDecodeError:
            shutil.copyfile(source, dest)
    _rename_chart(target / "Chart.yaml", name)
    return target


def _rename_chart(chart_yaml: Path, name: str) -> None:
    """The copied Chart.yaml names the new chart (helm sets ``name`` the same way)."""
    lines = chart_yaml.read_text("utf-8").splitlines(keepends=True)
    out = [f"name: {name}{os.linesep if line.endswith(os.linesep) else ''}" if line.startswith("name:") else line
           for line in lines]
    chart_yaml.write_text("".join(out), encoding="utf-8")
