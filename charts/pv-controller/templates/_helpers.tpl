{{/* The name every object carries: the release name, or release-chart when they differ. */}}
{{- define "pv-controller.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Pod selector: stable across upgrades, so it never includes the version. */}}
{{- define "pv-controller.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/*
Labels of every object. plainManifests renders for `kubectl apply` (deploy/ is generated that
way): no labels that claim Helm manages the object.
*/}}
{{- define "pv-controller.labels" -}}
{{ include "pv-controller.selectorLabels" . }}
app.kubernetes.io/component: controller
{{- if not .Values.plainManifests }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end }}
{{- end -}}

{{- define "pv-controller.serviceAccountName" -}}
{{- default (include "pv-controller.fullname" .) .Values.serviceAccount.name -}}
{{- end -}}

{{/* The provisioner name of each plugin, as StorageClasses name it. */}}
{{- define "pv-controller.provisioner" -}}
{{- $names := dict "host-path" "kubernetes.io/host-path" "nfs-subdir" "pv-controller.io/nfs-subdir" "aws-ebs" "kubernetes.io/aws-ebs" "gce-pd" "kubernetes.io/gce-pd" "cinder" "kubernetes.io/cinder" -}}
{{- $name := get $names .plugin -}}
{{- if not $name -}}
{{- fail (printf "storageClasses[%s].plugin must be one of host-path, nfs-subdir, aws-ebs, gce-pd, cinder (got %q)" .name .plugin) -}}
{{- end -}}
{{- $name -}}
{{- end -}}

{{/* The cloud plugin a provider serves, to check StorageClasses against the configured cloud. */}}
{{- define "pv-controller.cloudPlugin" -}}
{{- get (dict "aws" "aws-ebs" "gce" "gce-pd" "openstack" "cinder") . -}}
{{- end -}}

{{/*
Whether the controller runs as root: host-path volumes live in a root-owned directory of the
node, so the host-path plugin needs uid 0; everything else runs as securityContext.runAsUser.
*/}}
{{- define "pv-controller.runAsRoot" -}}
{{- if .Values.hostPath.enabled }}true{{ end -}}
{{- end -}}
