/** Whether a Released volume's claim is really gone: one live GET, the fact every reclaim decision rests on. */
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import type { ReclaimerDeps } from './deps.js';

/**
 * Upstream's `isVolumeReleased`, with a live GET of the claim: released when the claim named by
 * claimRef is gone, is another object (uid), or is bound to another volume.
 */
export async function isStillReleased(s: ReclaimerDeps, pv: PersistentVolume): Promise<boolean> {
  const ref = pv.spec.claimRef;
  if (!ref?.uid) return false;
  const claim = await s.ctx.api.getClaim(ref.namespace ?? '', ref.name ?? '');
  if (!claim || claim.metadata.uid !== ref.uid) return true;
  const volumeName = claim.spec.volumeName;
  return volumeName !== undefined && volumeName !== '' && volumeName !== pv.metadata.name;
}
