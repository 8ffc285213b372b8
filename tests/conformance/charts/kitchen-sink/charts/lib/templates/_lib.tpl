{{- define "lib.greet" -}}hello {{ .Chart.Name }}{{- end -}}
