/**
 * The pods of the nodes suite (nodes.test.ts) and the Prometheus text it compares: busybox pods
 * on the host network (the nodes have no pod network), and the value of one
 * kubelet_volume_stats_* series for a claim.
 */
import type { KubeObject } from '@pv-controller/kube/types.js';
import { TEST_IMAGE } from '../../../tools/cluster/node-binaries.js';

export interface Pod extends KubeObject {
  spec: { nodeName?: string };
  status?: { phase?: string; conditions?: Array<{ type: string; status: string; reason?: string; message?: string }> };
}

export interface PodOptions {
  restartPolicy?: 'Never' | 'Always';
  /** Mounted at /data. */
  claim?: string;
  terminationGracePeriodSeconds?: number;
}

/** A busybox pod running `sh -c` over the lines of `script`. */
export function podSpec(name: string, script: string[], opts: PodOptions = {}): object {
  return {
    metadata: { name },
    spec: {
      hostNetwork: true,
      restartPolicy: opts.restartPolicy ?? 'Always',
      terminationGracePeriodSeconds: opts.terminationGracePeriodSeconds ?? 5,
      containers: [{
        name: 'main',
        image: TEST_IMAGE,
        imagePullPolicy: 'Never',
        command: ['/bin/sh', '-c', script.join('\n')],
        volumeMounts: opts.claim ? [{ name: 'data', mountPath: '/data' }] : [],
      }],
      volumes: opts.claim ? [{ name: 'data', persistentVolumeClaim: { claimName: opts.claim } }] : [],
    },
  };
}

/** Series name with its labels → value, of Prometheus text exposition. */
export function scrape(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const m = /^(\S+?)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (m) out.set(`${m[1]}${m[2] ?? ''}`, Number(m[3]));
  }
  return out;
}

/** kubelet_volume_stats_<suffix> of a claim, whatever order its labels are in. */
export function volumeStat(series: Map<string, number>, suffix: string, namespace: string, claim: string): number | undefined {
  const name = `kubelet_volume_stats_${suffix}`;
  for (const [key, value] of series) {
    if (!key.startsWith(`${name}{`)) continue;
    if (key.includes(`namespace="${namespace}"`) && key.includes(`persistentvolumeclaim="${claim}"`)) return value;
  }
  return undefined;
}
