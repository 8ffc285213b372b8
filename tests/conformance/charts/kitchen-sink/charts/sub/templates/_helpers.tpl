{{- define "ks.shared" -}}sub{{- end -}}
