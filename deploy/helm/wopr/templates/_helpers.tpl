{{/* The release's name prefix: RELEASE-wopr, or RELEASE when it holds "wopr". */}}
{{- define "wopr.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Labels that select a component's pods (call with dict "root" $ "component" NAME). */}}
{{- define "wopr.selectorLabels" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "wopr.labels" -}}
{{ include "wopr.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version }}
{{- end -}}

{{- define "wopr.image" -}}
{{- if .Values.image.digest -}}
{{ .Values.image.repository }}@{{ .Values.image.digest }}
{{- else -}}
{{ .Values.image.repository }}:{{ .Values.image.tag }}
{{- end -}}
{{- end -}}

{{- define "wopr.podAnnotations" -}}
{{- if .Values.metrics.annotations -}}
prometheus.io/scrape: "true"
prometheus.io/port: {{ .Values.metrics.port | quote }}
prometheus.io/path: /metrics
{{- end }}
{{- end -}}

{{/*
The flags both daemons take: the store, metrics and logs, and the NATS
credentials and TLS files from the volumes of "wopr.volumes".
*/}}
{{- define "wopr.commonArgs" -}}
- --data=/var/lib/wopr
- --metrics-addr=:{{ .Values.metrics.port }}
- --log-format={{ .Values.logFormat }}
{{- with .Values.nats.creds }}{{ if .secretName }}
- --nats-creds=/etc/wopr/nats/creds/{{ .key }}
{{- end }}{{ end }}
{{- with .Values.nats.nkey }}{{ if .secretName }}
- --nats-nkey=/etc/wopr/nats/nkey/{{ .key }}
{{- end }}{{ end }}
{{- with .Values.nats.tls }}{{ if .secretName }}
- --tls-ca=/etc/wopr/tls/{{ .ca }}
{{- if .cert }}
- --tls-cert=/etc/wopr/tls/{{ .cert }}
- --tls-key=/etc/wopr/tls/{{ .key }}
{{- end }}
{{- end }}{{ end }}
{{- end -}}

{{/* The NATS URL and the user and password, in the environment. */}}
{{- define "wopr.env" -}}
- name: WOPR_NATS
  value: {{ .Values.nats.url | quote }}
{{- if .Values.nats.user }}
- name: WOPR_NATS_USER
  value: {{ .Values.nats.user | quote }}
{{- end }}
{{- with .Values.nats.password }}{{ if .secretName }}
- name: WOPR_NATS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ .secretName }}
      key: {{ .key }}
{{- end }}{{ end }}
{{- end -}}

{{- define "wopr.probes" -}}
livenessProbe:
  httpGet: {path: /healthz, port: metrics}
  {{- toYaml .Values.probes.liveness | nindent 2 }}
readinessProbe:
  httpGet: {path: /readyz, port: metrics}
  {{- toYaml .Values.probes.readiness | nindent 2 }}
{{- end -}}

{{- define "wopr.volumeMounts" -}}
- name: tmp
  mountPath: /tmp
{{- if .Values.nats.creds.secretName }}
- name: nats-creds
  mountPath: /etc/wopr/nats/creds
  readOnly: true
{{- end }}
{{- if .Values.nats.nkey.secretName }}
- name: nats-nkey
  mountPath: /etc/wopr/nats/nkey
  readOnly: true
{{- end }}
{{- if .Values.nats.tls.secretName }}
- name: tls
  mountPath: /etc/wopr/tls
  readOnly: true
{{- end }}
{{- end -}}

{{- define "wopr.volumes" -}}
- name: tmp
  emptyDir: {}
{{- with .Values.nats.creds }}{{ if .secretName }}
- name: nats-creds
  secret:
    secretName: {{ .secretName }}
    items: [{key: {{ .key }}, path: {{ .key }}}]
    defaultMode: 0440
{{- end }}{{ end }}
{{- with .Values.nats.nkey }}{{ if .secretName }}
- name: nats-nkey
  secret:
    secretName: {{ .secretName }}
    items: [{key: {{ .key }}, path: {{ .key }}}]
    defaultMode: 0440
{{- end }}{{ end }}
{{- with .Values.nats.tls }}{{ if .secretName }}
- name: tls
  secret:
    secretName: {{ .secretName }}
    defaultMode: 0440
{{- end }}{{ end }}
{{- end -}}

{{/* nodeSelector, tolerations and affinity of a component's values. */}}
{{- define "wopr.scheduling" -}}
{{- with .nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}
