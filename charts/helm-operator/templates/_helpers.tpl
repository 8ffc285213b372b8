{{- define "helm-operator.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "helm-operator.fullname" -}}
{{- if contains .Chart.Name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{- define "helm-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "helm-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "helm-operator.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "helm-operator.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: helm-controller
{{- end }}

{{- define "helm-operator.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "helm-operator.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
The controller's rights on namespaced resources (deploy/rbac.yaml explains each): the same in
a ClusterRole and in each namespace's Role. Impersonation is of ServiceAccounts only.
*/}}
{{- define "helm-operator.namespacedRules" -}}
- apiGroups: ["helm.sh"]
  resources: ["helmrequests"]
  verbs: ["get", "list", "watch", "patch", "update"]
- apiGroups: ["helm.sh"]
  resources: ["helmrequests/status", "helmrequests/finalizers"]
  verbs: ["get", "patch", "update"]
- apiGroups: ["helm.sh"]
  resources: ["helmrepositories"]
  verbs: ["get", "list", "watch", "patch", "update"]
- apiGroups: ["helm.sh"]
  resources: ["helmrepositories/status", "helmrepositories/finalizers"]
  verbs: ["get", "patch", "update"]
- apiGroups: ["helm.sh"]
  resources: ["releases"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["serviceaccounts"]
  verbs: ["get", "impersonate"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
- apiGroups: ["events.k8s.io"]
  resources: ["events"]
  verbs: ["create", "patch"]
{{- if .Values.settings.watchValuesFrom }}
- apiGroups: [""]
  resources: ["configmaps", "secrets"]
  verbs: ["list", "watch"]
{{- end }}
{{- end }}

{{- define "helm-operator.validate" -}}
{{- if not (has .Values.rbac.mode (list "cluster" "namespaced")) }}
{{- fail (printf "rbac.mode must be cluster or namespaced, not %q" .Values.rbac.mode) }}
{{- end }}
{{- if and (eq .Values.rbac.mode "namespaced") (not .Values.watchNamespaces) }}
{{- fail "rbac.mode namespaced needs watchNamespaces: the namespaces to grant the controller" }}
{{- end }}
{{- end }}
