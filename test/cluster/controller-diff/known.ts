/**
 * Where our controllers' converged state is known to differ from kube-controller-manager's, and
 * why. A difference is explained when its path matches (and, for a scenario-bound entry, in that
 * scenario); the differential fails on any other.
 */
import type { StateDifference } from './snapshot.js';

export interface KnownControllerDifference {
  name: string;
  /** Matched against the difference's path ("claims.c.status.conditions"). */
  path: RegExp;
  /** Only in this scenario. */
  scenario?: string;
  reason: string;
}

export const KNOWN_CONTROLLER_DIFFERENCES: KnownControllerDifference[] = [
  {
    name: 'provisioner annotation on a refused claim',
    path: /^claims\.[^.]+\.metadata\.annotations$/,
    scenario: 'cd-mount-options',
    reason: 'ours annotates a claim with its storage-provisioner only when it commits to provisioning it (with its intent finalizer, in one write); kube-controller-manager annotates first and refuses after, leaving a claim that names a provisioner which will never provision it',
  },
  {
    name: 'host-path type',
    path: /^volumes\.[^.]+\.spec\.hostPath\.type$/,
    reason: 'ours provisions host-path volumes with type DirectoryOrCreate, so kubelet itself recreates a missing directory the same way under every container runtime; the in-tree provisioner leaves the type empty, where what happens to a missing directory depends on the runtime',
  },
  {
    name: 'createdby annotation',
    path: /^volumes\.[^.]+\.metadata\.annotations\.kubernetes\.io\/createdby$/,
    reason: 'the in-tree host-path provisioner also writes the informational kubernetes.io/createdby annotation; ours writes pv.kubernetes.io/provisioned-by only, which says the same and is what every component reads',
  },
];

export function explainedBy(scenario: string, d: StateDifference): KnownControllerDifference | undefined {
  return KNOWN_CONTROLLER_DIFFERENCES.find((k) => (k.scenario === undefined || k.scenario === scenario) && k.path.test(d.path));
}
