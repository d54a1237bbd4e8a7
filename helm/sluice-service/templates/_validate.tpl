{{/*
Checks that span several values, which values.schema.json cannot express. Each failure
says what is wrong and what to change. Included once, by the StatefulSet.
*/}}
{{- define "sluice-service.validate" -}}
{{- $commitSeconds := divf (include "sluice-service.commitIntervalMs" . | float64) 1000 | ceil | int -}}
{{- $needed := add $commitSeconds .Values.shutdown.closeSeconds -}}
{{- if le (int .Values.terminationGracePeriodSeconds) $needed -}}
{{- fail (printf "terminationGracePeriodSeconds (%d) must exceed the commit interval (%d s) plus shutdown.closeSeconds (%d s), or Kubernetes kills the instance before it commits: set it to at least %d, or lower kafka.commitIntervalMs or shutdown.closeSeconds" (int .Values.terminationGracePeriodSeconds) $commitSeconds (int .Values.shutdown.closeSeconds) (add1 $needed)) -}}
{{- end -}}
{{- $partitions := int .Values.kafka.partitions -}}
{{- $scaled := or .Values.keda.enabled .Values.autoscaler.enabled -}}
{{- if and (gt $partitions 0) (gt (int .Values.replicas) $partitions) (not $scaled) -}}
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
{{- with .Values.autoscaler -}}
{{- if .enabled -}}
{{- if and (gt $partitions 0) (gt (int .maxReplicas) $partitions) -}}
{{- fail (printf "autoscaler.maxReplicas (%d) exceeds kafka.partitions (%d): instances beyond the number of tasks sit idle; lower autoscaler.maxReplicas" (int .maxReplicas) $partitions) -}}
{{- end -}}
{{- if gt (int .minReplicas) (int .maxReplicas) -}}
{{- fail (printf "autoscaler.minReplicas (%d) exceeds autoscaler.maxReplicas (%d)" (int .minReplicas) (int .maxReplicas)) -}}
{{- end -}}
{{- if and (eq (int .minReplicas) 0) (empty .topics) -}}
{{- fail "autoscaler.minReplicas 0 needs autoscaler.topics: while no instance runs, the group's committed offsets expire (offsets.retention.minutes), and the autoscaler would then find no partitions and never scale back up" -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- with .Values.podDisruptionBudget -}}
{{- if and .enabled (not (kindIs "string" .minAvailable)) (not $scaled) (ge (int .minAvailable) (int $.Values.replicas)) (gt (int $.Values.replicas) 0) -}}
{{- fail (printf "podDisruptionBudget.minAvailable (%d) must be below replicas (%d), or no pod may ever be evicted and node drains hang: lower it or use maxUnavailable" (int .minAvailable) (int $.Values.replicas)) -}}
{{- end -}}
{{- end -}}
{{- if and .Values.metrics.enabled (eq (int .Values.http.port) 0) -}}
{{- fail "metrics.enabled needs http.port: /metrics is served by the instance's HTTP server" -}}
{{- end -}}
{{- if and .Values.metrics.serviceMonitor.enabled (not .Values.metrics.enabled) -}}
{{- fail "metrics.serviceMonitor.enabled needs metrics.enabled" -}}
{{- end -}}
{{- $reserved := list "POD_NAME" "POD_NAMESPACE" "KAFKA_BOOTSTRAP_SERVERS" "APPLICATION_ID" "PROCESSING_GUARANTEE" "COMMIT_INTERVAL_MS" "SESSION_TIMEOUT_MS" "STATE_DIR" "HTTP_PORT" "SLUICE_GROUP_INSTANCE_ID" "SLUICE_APPLICATION_SERVER" "SLUICE_SASL_MECHANISM" "SLUICE_SASL_USERNAME" "SLUICE_SASL_PASSWORD" "SLUICE_TLS" "SLUICE_TLS_CA_FILE" "SLUICE_TLS_CERT_FILE" "SLUICE_TLS_KEY_FILE" -}}
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
{{- range $key := keys .Values.podLabels | sortAlpha -}}
{{- if hasPrefix "app.kubernetes.io/" $key -}}
{{- fail (printf "podLabels.%s: the chart sets the app.kubernetes.io/ labels itself (the StatefulSet selects its pods by them); use another label key" $key) -}}
{{- end -}}
{{- end -}}
{{- range $key := keys .Values.podAnnotations | sortAlpha -}}
{{- if and (hasPrefix "prometheus.io/" $key) $.Values.metrics.enabled $.Values.metrics.scrapeAnnotations -}}
{{- fail (printf "podAnnotations.%s: the chart sets the prometheus.io/ annotations from metrics.*; set metrics.scrapeAnnotations: false to write your own" $key) -}}
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
