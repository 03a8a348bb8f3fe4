/**
 * Which size to ask of the plugin for a bound claim, the way upstream's expand-and-recover does
 * (KEP-1790; kube-controller-manager's operation_generator.go expandAndRecoverFunction and
 * external-resizer's expand_and_recover.go): while an expansion is in progress, or done on the
 * controller's side and pending on the node, the size recorded in status.allocatedResources
 * stands, since the backend may already have it; after a final failure (ControllerResizeInfeasible)
 * the claim's request stands, which is how a user recovers by asking for less.
 */
import { compareQuantityStrings, isValidQuantity } from '@pv-controller/kube/quantity.js';
import type { PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { storageResizeStatus } from './claim-status.js';

export type ResizeStep =
  | { kind: 'none' }
  /** Record `size` as allocated (ControllerResizeInProgress), then ask the plugin for it. */
  | { kind: 'expand'; size: string };

const NONE: ResizeStep = { kind: 'none' };

const larger = (a: string | undefined, b: string | undefined): boolean =>
  a !== undefined && isValidQuantity(a) && (b === undefined || !isValidQuantity(b) || compareQuantityStrings(a, b) > 0);

export function nextResizeStep(claim: PersistentVolumeClaim): ResizeStep {
  const requested = claim.spec.resources?.requests?.storage;
  const capacity = claim.status?.capacity?.storage;
  const allocated = claim.status?.allocatedResources?.storage;
  switch (storageResizeStatus(claim)) {
    case 'ControllerResizeInProgress':
      return { kind: 'expand', size: allocated ?? requested ?? '0' };
    case 'NodeResizePending':
    case 'NodeResizeInProgress':
    case 'NodeResizeInfeasible':
      // The controller's part is done; growing beyond it waits for the kubelet to finish its part.
      return NONE;
    case 'ControllerResizeInfeasible':
      // The size that failed is not asked again; a different request (even a smaller one) is.
      return requested !== allocated && larger(requested, capacity) ? { kind: 'expand', size: requested ?? '0' } : NONE;
    default:
      return larger(requested, capacity) ? { kind: 'expand', size: requested ?? '0' } : NONE;
  }
}
