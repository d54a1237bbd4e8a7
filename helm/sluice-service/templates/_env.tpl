{{/*
The container's environment: the contract between the chart and a service's main
(docs/deploy.md lists it). Secrets arrive only as secretKeyRef or mounted files.
*/}}
{{- define "sluice-service.env" -}}
{{- $fullname := include "sluice-service.fullname" . -}}
{{- $port := int .Values.http.port -}}
- name: POD_NAME
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: POD_NAMESPACE
  valueFrom:
    fieldRef:
      fieldPath: metadata.namespace
- name: KAFKA_BOOTSTRAP_SERVERS
  value: {{ .Values.kafka.bootstrapServers | quote }}
- name: APPLICATION_ID
  value: {{ .Values.kafka.applicationId | quote }}
- name: PROCESSING_GUARANTEE
  value: {{ .Values.kafka.processingGuarantee | quote }}
{{- if gt (int .Values.kafka.commitIntervalMs) 0 }}
- name: COMMIT_INTERVAL_MS
  value: {{ .Values.kafka.commitIntervalMs | int | quote }}
{{- end }}
- name: STATE_DIR
  value: {{ .Values.stateDir | quote }}
{{- if .Values.kafka.staticMembership }}
# The pod name is stable in a StatefulSet: a restarted pod rejoins as the same member.
- name: SLUICE_GROUP_INSTANCE_ID
  value: "$(POD_NAME)"
{{- end }}
{{- if gt (int .Values.kafka.sessionTimeoutMs) 0 }}
- name: SESSION_TIMEOUT_MS
  value: {{ .Values.kafka.sessionTimeoutMs | int | quote }}
{{- end }}
{{- if gt $port 0 }}
- name: HTTP_PORT
  value: {{ $port | quote }}
# Where other instances reach this one for interactive queries: its DNS name in the
# headless Service, which resolves even while the pod is not ready.
- name: SLUICE_APPLICATION_SERVER
  value: "$(POD_NAME).{{ $fullname }}.$(POD_NAMESPACE).svc:{{ $port }}"
{{- end }}
{{- with .Values.kafka.sasl }}
{{- if .enabled }}
- name: SLUICE_SASL_MECHANISM
  value: {{ .mechanism | quote }}
- name: SLUICE_SASL_USERNAME
  value: {{ .username | quote }}
- name: SLUICE_SASL_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ .existingSecret }}
      key: {{ .passwordKey }}
{{- end }}
{{- end }}
{{- with .Values.kafka.tls }}
{{- if .enabled }}
- name: SLUICE_TLS
  value: "true"
{{- if .existingSecret }}
- name: SLUICE_TLS_CA_FILE
  value: {{ printf "/etc/sluice/tls/%s" .caKey | quote }}
{{- if .certKey }}
- name: SLUICE_TLS_CERT_FILE
  value: {{ printf "/etc/sluice/tls/%s" .certKey | quote }}
- name: SLUICE_TLS_KEY_FILE
  value: {{ printf "/etc/sluice/tls/%s" .keyKey | quote }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
{{- range $name, $value := .Values.env }}
- name: {{ $name }}
  value: {{ $value | quote }}
{{- end }}
{{- range .Values.secretEnv }}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ .secretName }}
      key: {{ .key }}
{{- end }}
{{- end -}}
