{{/*
The base of every object name. A StatefulSet name may have at most 52 characters (its pods'
controller-revision-hash label appends 11), so longer names keep 45 characters and end
with a hash of the whole name: still unique, and the same on every upgrade.
*/}}
{{- define "sluice-service.fullname" -}}
{{- $name := .Values.nameOverride -}}
{{- if not $name -}}
{{- $name = ternary .Release.Name (printf "%s-%s" .Release.Name .Values.service) (contains .Values.service .Release.Name) -}}
{{- end -}}
{{- if gt (len $name) 52 -}}
{{- printf "%s-%s" ($name | trunc 45 | trimSuffix "-") (sha256sum $name | trunc 6) -}}
{{- else -}}
{{- $name -}}
{{- end -}}
{{- end -}}

{{- define "sluice-service.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "sluice-service.labels" -}}
{{ include "sluice-service.selectorLabels" . }}
app.kubernetes.io/component: {{ .Values.service }}
app.kubernetes.io/version: {{ include "sluice-service.imageTag" . | trunc 63 | trimSuffix "-" | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "sluice-service.imageTag" -}}
{{- .Values.image.tag | default .Chart.AppVersion -}}
{{- end -}}

{{- define "sluice-service.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (include "sluice-service.imageTag" .) -}}
{{- end -}}
{{- end -}}

{{/* The commit interval the service runs with, in ms: the value given or Sluice's default. */}}
{{- define "sluice-service.commitIntervalMs" -}}
{{- if gt (int .Values.kafka.commitIntervalMs) 0 -}}
{{- .Values.kafka.commitIntervalMs | int -}}
{{- else -}}
{{- ternary 100 30000 (eq .Values.kafka.processingGuarantee "exactly_once") -}}
{{- end -}}
{{- end -}}

{{/* The autoscaler's own name label, so the service's selectors never pick its pod. */}}
{{- define "sluice-service.autoscalerSelectorLabels" -}}
app.kubernetes.io/name: {{ printf "%s-autoscaler" .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "sluice-service.autoscalerLabels" -}}
{{ include "sluice-service.autoscalerSelectorLabels" . }}
app.kubernetes.io/component: autoscaler
app.kubernetes.io/part-of: {{ .Values.service }}
app.kubernetes.io/version: {{ include "sluice-service.imageTag" . | trunc 63 | trimSuffix "-" | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}
