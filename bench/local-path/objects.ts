/**
 * The objects of the local-path side by side (bench/scenarios/local-path.ts): the three
 * StorageClasses under test, local-path-provisioner's namespace, ServiceAccount and ConfigMap
 * (written here, not taken from its deploy YAML), and the workload — a claim and a pod that
 * writes one file into it and then waits to be deleted. Pure: no I/O.
 */
import { NODE_HOST_PATH_PROVISIONER } from '../../src/plugins/host-path/index.js';

/** local-path-provisioner's default `--provisioner-name`. */
export const LOCAL_PATH_PROVISIONER = 'rancher.io/local-path';
export const LOCAL_PATH_NAMESPACE = 'local-path-storage';
export const LOCAL_PATH_SERVICE_ACCOUNT = 'local-path-provisioner';
export const LOCAL_PATH_CONFIGMAP = 'local-path-config';
/** Where the workload's claims and pods live. */
export const WORKLOAD_NAMESPACE = 'bench-local';

/** The provisioners under test, in the order a run measures them. */
export const SIDES = ['local-path', 'ours-dir', 'ours-sized'] as const;
export type Side = (typeof SIDES)[number];


/** Each side's StorageClass: WaitForFirstConsumer and Delete, as local-path's own class is. */
export function storageClass(side: Side): Record<string, unknown> {
  const base = { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: `bench-${side}` }, volumeBindingMode: 'WaitForFirstConsumer', reclaimPolicy: 'Delete' };
  if (side === 'local-path') return { ...base, provisioner: LOCAL_PATH_PROVISIONER };
  if (side === 'ours-dir') return { ...base, provisioner: NODE_HOST_PATH_PROVISIONER };
  return { ...base, provisioner: NODE_HOST_PATH_PROVISIONER, parameters: { sizing: 'image' } };
}

/**
 * local-path-provisioner's config.json: every node's volumes under `root`. Its helper pods run
 * `setup` and `teardown` with VOL_DIR set (the volume's directory as mounted in the helper pod).
 */
export function localPathConfig(root: string, image: string): Record<string, string> {
  const config = {
    nodePathMap: [{ node: 'DEFAULT_PATH_FOR_NON_LISTED_NODES', paths: [root] }],
    // Seconds its worker polls a helper pod for success (once a second) before giving up.
    cmdTimeoutSeconds: 300,
  };
  return {
    'config.json': JSON.stringify(config, null, 2),
    setup: '#!/bin/sh\nset -eu\nmkdir -m 0777 -p "$VOL_DIR"\n',
    teardown: '#!/bin/sh\nset -eu\nrm -rf "$VOL_DIR"\n',
    'helperPod.yaml': helperPodYaml(image),
  };
}

/**
 * The helper pod template. v0.0.30 takes the helper's image from here: its --helper-image flag
 * is required, but the value is stored and never used.
 */
export function helperPodYaml(image: string): string {
  return [
    'apiVersion: v1',
    'kind: Pod',
    'metadata:',
    '  name: helper-pod',
    'spec:',
    // No token: the helper only runs mkdir/rm, and a projected token needs kube-root-ca.crt,
    // which only a full kube-controller-manager publishes.
    '  automountServiceAccountToken: false',
    // The nodes have no pod network (tools/cluster/nodes.ts): every pod runs on the host's.
    '  hostNetwork: true',
    '  containers:',
    '    - name: helper-pod',
    `      image: ${JSON.stringify(image)}`,
    '      imagePullPolicy: Never',
    '',
  ].join('\n');
}

export function localPathObjects(root: string, image: string): Array<Record<string, unknown>> {
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: LOCAL_PATH_NAMESPACE } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: LOCAL_PATH_SERVICE_ACCOUNT, namespace: LOCAL_PATH_NAMESPACE } },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: LOCAL_PATH_CONFIGMAP, namespace: LOCAL_PATH_NAMESPACE }, data: localPathConfig(root, image) },
  ];
}

/** local-path-provisioner's command line, run as a host process with a kubeconfig. */
export function localPathArgs(kubeconfig: string, helperImage: string, workers: number): string[] {
  return [
    'start',
    '--kubeconfig', kubeconfig,
    '--namespace', LOCAL_PATH_NAMESPACE,
    '--configmap-name', LOCAL_PATH_CONFIGMAP,
    '--service-account-name', LOCAL_PATH_SERVICE_ACCOUNT,
    '--helper-image', helperImage,
    '--provisioner-name', LOCAL_PATH_PROVISIONER,
    '--worker-threads', String(workers),
  ];
}

/** Name of the i-th claim and pod of a side (the same name for both). */
export function workloadName(side: Side, i: number): string {
  return `${side}-${String(i).padStart(4, '0')}`;
}

/** A claim of the side's class (16Mi: the smallest sized volume). */
export function workloadClaim(side: Side, name: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: WORKLOAD_NAMESPACE, labels: { 'bench.pv-controller.io/side': side } },
    spec: { accessModes: ['ReadWriteOnce'], storageClassName: `bench-${side}`, resources: { requests: { storage: '16Mi' } } },
  };
}

/**
 * A pod that writes its name into the volume, syncs, and waits for SIGTERM (busybox `sh` as
 * PID 1 has no default handler, hence the trap), so a delete ends it at once. It never restarts:
 * a failed write leaves it Failed, which the harness counts as a failure, never as Running.
 */
export function workloadPod(side: Side, name: string, image: string, node: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: WORKLOAD_NAMESPACE, labels: { 'bench.pv-controller.io/side': side } },
    spec: {
      nodeSelector: { 'kubernetes.io/hostname': node },
      terminationGracePeriodSeconds: 5,
      restartPolicy: 'Never',
      hostNetwork: true,
      enableServiceLinks: false,
      automountServiceAccountToken: false,
      containers: [
        {
          name: 'writer',
          image,
          imagePullPolicy: 'Never',
          command: ['sh', '-c', 'echo "$POD" > /data/written && sync || exit 1; trap "exit 0" TERM; sleep 86400 & wait'],
          env: [{ name: 'POD', value: name }],
          volumeMounts: [{ name: 'data', mountPath: '/data' }],
        },
      ],
      volumes: [{ name: 'data', persistentVolumeClaim: { claimName: name } }],
    },
  };
}
