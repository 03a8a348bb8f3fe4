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
{{- $names := dict "host-path" "kubernetes.io/host-path" "host-path-node" "host-path.pv-controller.io" "nfs-subdir" "pv-controller.io/nfs-subdir" "aws-ebs" "kubernetes.io/aws-ebs" "gce-pd" "kubernetes.io/gce-pd" "cinder" "kubernetes.io/cinder" -}}
{{- $name := get $names .plugin -}}
{{- if not $name -}}
{{- fail (printf "storageClasses[%s].plugin must be one of host-path, host-path-node, nfs-subdir, aws-ebs, gce-pd, cinder (got %q)" .name .plugin) -}}
{{- end -}}
{{- $name -}}
{{- end -}}

{{/* The cloud plugin a provider serves, to check StorageClasses against the configured cloud. */}}
{{- define "pv-controller.cloudPlugin" -}}
{{- get (dict "aws" "aws-ebs" "gce" "gce-pd" "openstack" "cinder") . -}}
{{- end -}}

{{/*
Whether the controller Deployment serves host-path itself: with node agents, host-path is
theirs (provisioner host-path.pv-controller.io) and hostPath is ignored.
*/}}
{{- define "pv-controller.centralHostPath" -}}
{{- if and .Values.hostPath.enabled (not .Values.nodeAgent.enabled) }}true{{ end -}}
{{- end -}}

{{/*
Whether the controller runs as root: host-path volumes live in a root-owned directory of the
node, so the host-path plugin needs uid 0; everything else runs as securityContext.runAsUser.
*/}}
{{- define "pv-controller.runAsRoot" -}}
{{- include "pv-controller.centralHostPath" . -}}
{{- end -}}

{{/* The node agents' pod selector: a name of its own, so the controller Deployment's selector never matches their pods. */}}
{{- define "pv-controller.nodeAgentSelectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}-node-agent
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "pv-controller.nodeAgentLabels" -}}
{{ include "pv-controller.nodeAgentSelectorLabels" . }}
app.kubernetes.io/component: node-agent
app.kubernetes.io/part-of: {{ .Chart.Name }}
{{- if not .Values.plainManifests }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end }}
{{- end -}}

{{- define "pv-controller.nodeAgentServiceAccountName" -}}
{{- default (printf "%s-node-agent" (include "pv-controller.fullname" .)) .Values.nodeAgent.serviceAccount.name -}}
{{- end -}}

{{/*
Whether the node agents make sized volumes (loop-mounted images): nodeAgent.sizedVolumes, or a
class of plugin host-path-node in storageClasses with `sizing: image`.
*/}}
{{- define "pv-controller.nodeAgentSized" -}}
{{- $sized := .Values.nodeAgent.sizedVolumes -}}
{{- range .Values.storageClasses }}
{{- if and (eq .plugin "host-path-node") (eq (toString (get (.parameters | default dict) "sizing")) "image") }}{{ $sized = true }}{{ end -}}
{{- end -}}
{{- if $sized }}true{{ end -}}
{{- end -}}

{{/*
The controller's nodeSelector: .Values.nodeSelector, plus kubernetes.io/hostname of
hostPath.node when the controller serves host-path itself (its volumes live on that node alone,
so the pod must never be scheduled anywhere else, a drain included).
*/}}
{{- define "pv-controller.nodeSelector" -}}
{{- $selector := deepCopy (.Values.nodeSelector | default dict) -}}
{{- if and (include "pv-controller.centralHostPath" .) .Values.hostPath.node -}}
{{- $_ := set $selector "kubernetes.io/hostname" .Values.hostPath.node -}}
{{- end -}}
{{- if $selector }}{{ toYaml $selector }}{{ end -}}
{{- end -}}

{{/*
The pod volume of the node agent's root number N (nodeAgent.roots): host-path-root for the first,
as before there were several, host-path-root-N after it.
*/}}
{{- define "pv-controller.nodeAgentRootVolume" -}}
{{- if eq (int .) 0 }}host-path-root{{ else }}host-path-root-{{ . }}{{ end }}
{{- end }}

{{/*
"true" when a host-path-node class below gives its volumes an owner or group
(parameters.directoryUid / directoryGid): the agent then needs CAP_CHOWN too.
*/}}
{{- define "pv-controller.nodeAgentChowns" -}}
{{- $chowns := false -}}
{{- range .Values.storageClasses }}
{{- $p := .parameters | default dict -}}
{{- if and (eq .plugin "host-path-node") (or (hasKey $p "directoryUid") (hasKey $p "directoryGid")) }}{{ $chowns = true }}{{ end -}}
{{- end -}}
{{- if $chowns }}true{{ end -}}
{{- end }}
Where the pods reach kube-apiserver when the cluster's in-cluster address (the kubernetes
Service, through kube-proxy) is not the way: KUBERNETES_SERVICE_HOST and _PORT, which the
container's own env overrides over the kubelet's service variables. Empty: the kubelet's.
*/}}
{{- define "pv-controller.apiServerEnv" -}}
{{- with .Values.apiServer.host -}}
- { name: KUBERNETES_SERVICE_HOST, value: {{ . | quote }} }
- { name: KUBERNETES_SERVICE_PORT, value: {{ $.Values.apiServer.port | default 443 | toString | quote }} }
{{- end }}
{{- end -}}

{{/*
The --metrics-bind-address of a pod serving on `port`: all of the pod's interfaces, or with the
host's network only the pod's IP (the node's address: POD_IP, from the downward API), so that a
host-network pod neither serves its metrics on every address of the node nor takes the port on
all of them from the other pods of the host.
*/}}
{{- define "pv-controller.metricsBindAddress" -}}
{{- if .hostNetwork -}}
$(POD_IP):{{ .port }}
{{- else -}}
:{{ .port }}
{{- end -}}
{{- end -}}
