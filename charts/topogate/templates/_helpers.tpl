{{/* Names: the release name, unless it already says topogate. */}}
{{- define "topogate.fullname" -}}
{{- if contains "topogate" .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-topogate" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "topogate.labels" -}}
app.kubernetes.io/name: topogate
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "topogate.selector" -}}
app.kubernetes.io/name: topogate
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "topogate.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "topogate.tlsSecret" -}}
{{ include "topogate.fullname" . }}-tls
{{- end -}}

{{/* The Service's DNS names, as the API server and Prometheus call it. */}}
{{- define "topogate.serviceNames" -}}
{{- $name := include "topogate.fullname" . -}}
{{- list $name (printf "%s.%s" $name .Release.Namespace) (printf "%s.%s.svc" $name .Release.Namespace) (printf "%s.%s.svc.cluster.local" $name .Release.Namespace) | toJson -}}
{{- end -}}

{{/*
The certificates the chart makes itself: the ones already in the Secret when there are (so an upgrade
does not rotate them), else a new CA and serving certificate. Computed once per render and kept in
.Values so the Secret and the webhook's caBundle agree.
*/}}
{{- define "topogate.certificates" -}}
{{- if not .Values._certificates -}}
{{- $existing := lookup "v1" "Secret" .Release.Namespace (include "topogate.tlsSecret" .) -}}
{{- if and $existing (index $existing.data "ca.crt") (index $existing.data "tls.crt") (index $existing.data "tls.key") -}}
{{- $_ := set .Values "_certificates" (dict "ca" (index $existing.data "ca.crt" | b64dec) "cert" (index $existing.data "tls.crt" | b64dec) "key" (index $existing.data "tls.key" | b64dec)) -}}
{{- else -}}
{{- $days := int .Values.certificates.validityDays -}}
{{- $ca := genCA "topogate-ca" $days -}}
{{- $name := include "topogate.fullname" . -}}
{{- $cert := genSignedCert (printf "%s.%s.svc" $name .Release.Namespace) nil (include "topogate.serviceNames" . | fromJsonArray) $days $ca -}}
{{- $_ := set .Values "_certificates" (dict "ca" $ca.Cert "cert" $cert.Cert "key" $cert.Key) -}}
{{- end -}}
{{- end -}}
{{- end -}}
