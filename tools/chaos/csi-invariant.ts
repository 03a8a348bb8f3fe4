/**
 * The `csi-volumes` invariant, over what the CSI driver holds (ListVolumes, straight from the
 * driver) and what the API server holds once the run settled: every driver volume is named by
 * exactly one PV's `spec.csi.volumeHandle`, or was made for a claim that still carries the
 * provisioning finalizer (its provisioning or clean-up still under way); every PV of the driver
 * that is not Failed names a volume the driver holds; no two PVs name one volume.
 */
import { FINALIZER_PROVISIONING } from '@pv-controller/kube/annotations.js';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import type { DriverVolume } from './csi.js';

export interface CsiVolumesInput {
  driver: string;
  driverVolumes: DriverVolume[];
  claims: PersistentVolumeClaim[];
  volumes: PersistentVolume[];
}

export interface CsiVolumesResult {
  checked: number;
  violations: string[];
}

/** A PV's `spec.csi` driver and handle ('' where it names none). */
function csiSource(pv: PersistentVolume): { driver: string; handle: string } {
  const csi = pv.spec.csi ?? {};
  return { driver: typeof csi.driver === 'string' ? csi.driver : '', handle: typeof csi.volumeHandle === 'string' ? csi.volumeHandle : '' };
}

function describe(v: DriverVolume): string {
  return `driver volume ${v.id}${v.name !== undefined ? ` (${v.name})` : ''}`;
}

export function checkCsiVolumes(s: CsiVolumesInput): CsiVolumesResult {
  const violations: string[] = [];
  let checked = 0;
  const provisioning = new Set(s.claims.filter((c) => c.metadata.finalizers?.includes(FINALIZER_PROVISIONING)).map((c) => c.metadata.uid ?? ''));
  const pvsByHandle = new Map<string, string[]>();
  const ours = s.volumes.filter((pv) => csiSource(pv).driver === s.driver);
  for (const pv of ours) {
    const handle = csiSource(pv).handle;
    pvsByHandle.set(handle, [...(pvsByHandle.get(handle) ?? []), pv.metadata.name ?? '']);
  }
  for (const v of s.driverVolumes) {
    checked++;
    const pvs = pvsByHandle.get(v.id) ?? [];
    if (pvs.length > 1) violations.push(`${describe(v)} is named by ${pvs.length} PVs: ${pvs.join(', ')}`);
    else if (pvs.length === 0 && !(v.claimUid !== undefined && provisioning.has(v.claimUid))) {
      const claim = v.claimUid === undefined ? 'no claim named in its context' : `claim uid ${v.claimUid}, ${s.claims.some((c) => c.metadata.uid === v.claimUid) ? 'which no longer carries the provisioning finalizer' : 'which is gone'}`;
      violations.push(`${describe(v)} is named by no PV and belongs to no claim still provisioning (${claim}): leaked`);
    }
  }
  const held = new Set(s.driverVolumes.map((v) => v.id));
  for (const pv of ours) {
    if (pv.status?.phase === 'Failed') continue;
    checked++;
    const handle = csiSource(pv).handle;
    if (!held.has(handle)) violations.push(`PV ${pv.metadata.name ?? ''} (${pv.status?.phase ?? 'without phase'}) names driver volume ${handle}, which the driver does not hold`);
  }
  return { checked, violations };
}
