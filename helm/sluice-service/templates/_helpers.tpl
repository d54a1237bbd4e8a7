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

{{/* Mixed checks the schema cannot express; each says what to change. */}}
{{- define "sluice-service.validate" -}}
{{- $commitSeconds := divf (include "sluice-service.commitIntervalMs" . | float64) 1000 | ceil | int -}}
{{- $needed := add $commitSeconds .Values.shutdown.closeSeconds -}}
{{- if le (int .Values.terminationGracePeriodSeconds) $needed -}}
{{- fail (printf "terminationGracePeriodSeconds (%d) must exceed the commit interval (%d s) plus shutdown.closeSeconds (%d s), or Kubernetes kills the instance before it commits: set it to at least %d, or lower kafka.commitIntervalMs or shutdown.closeSeconds" (int .Values.terminationGracePeriodSeconds) $commitSeconds (int .Values.shutdown.closeSeconds) (add1 $needed)) -}}
{{- end -}}
{{- $partitions := int .Values.kafka.partitions -}}
{{- if and (gt $partitions 0) (gt (int .Values.replicas) $partitions) (not .Values.keda.enabled) -}}
{{- fail (printf "replicas (%d) exceeds kafka.partitions (%d): instances beyond the number of tasks sit idle; lower replicas or correct kafka.partitions" (int .Values.replicas) $partitions) -}}
{{- end -}}
{{- if .Values.keda.enabled -}}
{{- if eq $partitions 0 -}}
{{- fail "keda.enabled needs kafka.partitions (the number of tasks): KEDA's maxReplicas is capped at it" -}}
{{- end -}}
{{- if gt (int .Values.keda.maxReplicas) $partitions -}}
{{- fail (printf "keda.maxReplicas (%d) exceeds kafka.partitions (%d): instances beyond the number of tasks sit idle; lower keda.maxReplicas" (int .Values.keda.maxReplicas) $partitions) -}}
{{- end -}}
{{- if gt (int .Values.keda.minReplicas) (int .Values.keda.maxReplicas) -}}
{{- fail (printf "keda.minReplicas (%d) exceeds keda.maxReplicas (%d)" (int .Values.keda.minReplicas) (int .Values.keda.maxReplicas)) -}}
{{- end -}}
{{- if and (eq (int .Values.keda.minReplicas) 0) (empty .Values.keda.topics) -}}
{{- fail "keda.minReplicas 0 needs keda.topics: with no instance running the group consumes no topic, so KEDA would find no lag and never scale back up" -}}
{{- end -}}
{{- end -}}
{{- if and .Values.metrics.enabled (eq (int .Values.http.port) 0) -}}
{{- fail "metrics.enabled needs http.port: /metrics is served by the instance's HTTP server" -}}
{{- end -}}
{{- if and .Values.metrics.serviceMonitor.enabled (not .Values.metrics.enabled) -}}
{{- fail "metrics.serviceMonitor.enabled needs metrics.enabled" -}}
{{- end -}}
{{- $reserved := list "POD_NAME" "POD_NAMESPACE" "KAFKA_BOOTSTRAP_SERVERS" "APPLICATION_ID" "PROCESSING_GUARANTEE" "COMMIT_INTERVAL_MS" "STATE_DIR" "HTTP_PORT" "SLUICE_GROUP_INSTANCE_ID" "SLUICE_APPLICATION_SERVER" "SLUICE_SASL_MECHANISM" "SLUICE_SASL_USERNAME" "SLUICE_SASL_PASSWORD" "SLUICE_TLS" "SLUICE_TLS_CA_FILE" "SLUICE_TLS_CERT_FILE" "SLUICE_TLS_KEY_FILE" -}}
{{- $names := keys .Values.env -}}
{{- range .Values.secretEnv -}}
{{- $names = append $names .name -}}
{{- end -}}
{{- range $name := keys .Values.env | sortAlpha -}}
{{- if regexMatch "(?i)(PASSWORD|PASSWD|SECRET|TOKEN|CREDENTIAL|PRIVATE_KEY|API_?KEY)" $name -}}
{{- fail (printf "env.%s looks like a secret, and env values are stored in plain text in the release: put the value in a Secret and list it under secretEnv (name: %s, secretName: <secret>, key: <key>)" $name $name) -}}
{{- end -}}
{{- end -}}
{{- range $name := $names -}}
{{- if has $name $reserved -}}
{{- fail (printf "%s is set by the chart from its values (kafka.*, stateDir, http.port): set it there instead of in env or secretEnv" $name) -}}
{{- end -}}
{{- end -}}
{{- with .Values.kafka.sasl -}}
{{- if and .enabled (or (not .existingSecret) (not .username)) -}}
{{- fail "kafka.sasl.enabled needs kafka.sasl.username and kafka.sasl.existingSecret (the Secret holding the password under kafka.sasl.passwordKey)" -}}
{{- end -}}
{{- end -}}
{{- with .Values.kafka.tls -}}
{{- if and .existingSecret (not .enabled) -}}
{{- fail "kafka.tls.existingSecret is set but kafka.tls.enabled is false: enable TLS or drop the secret" -}}
{{- end -}}
{{- if ne (empty .certKey) (empty .keyKey) -}}
{{- fail "kafka.tls.certKey and kafka.tls.keyKey go together: a client certificate needs its key" -}}
{{- end -}}
{{- if and .certKey (not .existingSecret) -}}
{{- fail "kafka.tls.certKey needs kafka.tls.existingSecret, the Secret holding the client certificate" -}}
{{- end -}}
{{- end -}}
{{- end -}}
