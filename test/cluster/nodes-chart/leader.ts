/**
 * Which controller pod leads: each pod's own /metrics (leader_election_master_status, served on
 * its pod IP with the host's network) and the Lease the replicas elect on.
 */
import { CoordinationV1Api, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { NAMESPACE, RELEASE } from './release.js';

/** Whether the controller in `pod` says it leads, read from its /metrics at podIP:port. */
export async function podLeads(pod: V1Pod, port: number): Promise<boolean> {
  const ip = pod.status?.podIP;
  if (!ip) return false;
  const res = await fetch(`http://${ip}:${port}/metrics`, { signal: AbortSignal.timeout(5_000) });
  if (res.status !== 200) throw new Error(`GET /metrics of ${pod.metadata?.name} at ${ip}:${port}: HTTP ${res.status}`);
  const text = await res.text();
  const line = text.split('\n').find((l) => l.startsWith('leader_election_master_status{'));
  if (!line) throw new Error(`${pod.metadata?.name} serves no leader_election_master_status`);
  return line.trim().endsWith(' 1');
}

export interface LeaseState {
  holder: string;
  renewTime: number;
  transitions: number;
  durationSeconds: number;
}

export async function readLease(kc: KubeConfig): Promise<LeaseState> {
  const lease = await kc.makeApiClient(CoordinationV1Api).readNamespacedLease({ name: RELEASE, namespace: NAMESPACE });
  return {
    holder: lease.spec?.holderIdentity ?? '',
    renewTime: lease.spec?.renewTime ? new Date(lease.spec.renewTime).getTime() : 0,
    transitions: lease.spec?.leaseTransitions ?? 0,
    durationSeconds: lease.spec?.leaseDurationSeconds ?? 0,
  };
}
