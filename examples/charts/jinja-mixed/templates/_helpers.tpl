{{/* Go defines, shared by the Go and the Jinja2 templates (as a library chart's would be). */}}
{{- define "mixed.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "mixed.fullname" -}}
{{- printf "%s-%s" .Release.Name (include "mixed.name" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "mixed.selectorLabels" -}}
app.kubernetes.io/name: {{ include "mixed.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "mixed.labels" -}}
{{ include "mixed.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}
