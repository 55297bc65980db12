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

{{/*
An object of manifests/ for this release: names starting "topogate" start with the release's name
instead, the namespace topogate-system becomes the release's, the chart's labels are added, and a
workload gets the chart's image (and, for the probe, its resources and tolerations).
*/}}
{{- define "topogate.retarget" -}}
{{- $o := .object -}}
{{- $root := .root -}}
{{- $full := include "topogate.fullname" $root -}}
{{- $meta := $o.metadata -}}
{{- $_ := set $meta "name" (regexReplaceAll "^topogate" $meta.name $full) -}}
{{- if eq ($meta.namespace | default "") "topogate-system" -}}
{{- $_ := set $meta "namespace" $root.Release.Namespace -}}
{{- end -}}
{{- $_ := set $meta "labels" (merge ($meta.labels | default dict) (include "topogate.labels" $root | fromYaml)) -}}
{{- with $o.roleRef -}}
{{- $_ := set . "name" (regexReplaceAll "^topogate" .name $full) -}}
{{- end -}}
{{- range $o.subjects -}}
{{- $_ := set . "name" (regexReplaceAll "^topogate" .name $full) -}}
{{- if eq (.namespace | default "") "topogate-system" -}}
{{- $_ := set . "namespace" $root.Release.Namespace -}}
{{- end -}}
{{- end -}}
{{- if eq $o.kind "DaemonSet" -}}
{{- $pod := $o.spec.template.spec -}}
{{- $_ := set $pod "serviceAccountName" (regexReplaceAll "^topogate" $pod.serviceAccountName $full) -}}
{{- $_ := set $pod "tolerations" $root.Values.probe.tolerations -}}
{{- with $root.Values.image.pullSecrets -}}
{{- $_ := set $pod "imagePullSecrets" . -}}
{{- end -}}
{{- range $pod.containers -}}
{{- $_ := set . "image" (include "topogate.image" $root) -}}
{{- $_ := set . "imagePullPolicy" $root.Values.image.pullPolicy -}}
{{- $_ := set . "resources" $root.Values.probe.resources -}}
{{- $bandwidth := $root.Values.probe.bandwidth -}}
{{- $args := .args -}}
{{- if ne (toString $bandwidth.period) "0" -}}
{{- $args = concat $args (list "--bandwidth-period" (toString $bandwidth.period) "--bandwidth-bytes" (toString $bandwidth.bytes)) -}}
{{- end -}}
{{- $_ := set . "args" (concat $args $root.Values.probe.extraArgs) -}}
{{- end -}}
{{- end -}}
{{- toYaml $o -}}
{{- end -}}
