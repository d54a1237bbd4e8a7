{{- define "sluice-service.name" -}}
{{- printf "%s-%s" .Release.Name .Values.service | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "sluice-service.labels" -}}
app.kubernetes.io/name: {{ include "sluice-service.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/part-of: {{ .Values.kafka.applicationId }}
{{- end -}}
