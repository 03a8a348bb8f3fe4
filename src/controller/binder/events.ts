/** Event messages of the binder, in upstream's `pv_controller.go` words; the reasons are runtime/event-reasons.ts. */

export const MSG_NO_VOLUME_NO_CLASS =
  'no persistent volumes available for this claim and no storage class is set';
export const MSG_LOST_REFERENCE =
  'Bound claim has lost reference to PersistentVolume. Data on the volume is lost!';
export const MSG_LOST_VOLUME = 'Bound claim has lost its PersistentVolume. Data on the volume is lost!';
export const MSG_MISBOUND = 'Two claims are bound to the same volume, this one is bound incorrectly';
/**
 * Upstream's text, then what it leaves unsaid: the scheduler chooses the node by setting the
 * selected-node annotation, and where none runs (the embedded server) a person sets it.
 */
export function msgWaitForFirstConsumer(namespace: string, name: string): string {
  return (
    'waiting for first consumer to be created before binding (a scheduler sets annotation volume.kubernetes.io/selected-node ' +
    'when it places a pod that uses the claim; without a scheduler, set it yourself: ' +
    `kubectl annotate pvc -n ${namespace} ${name} volume.kubernetes.io/selected-node=<node>)`
  );
}

export function msgVolumeMismatch(pvName: string, reason: string): string {
  return `Cannot bind to requested volume "${pvName}": ${reason}`;
}

export function msgAlreadyBoundElsewhere(pvName: string): string {
  return `volume "${pvName}" already bound to a different claim.`;
}

export function msgWaitForPods(podNames: string[]): string {
  return podNames.length > 1
    ? `waiting for pods ${podNames.join(',')} to be scheduled`
    : `waiting for pod ${podNames[0]} to be scheduled`;
}

export function msgVolumeModeMismatchOnVolume(claimName: string): string {
  return `Cannot bind PersistentVolume to requested PersistentVolumeClaim "${claimName}" due to incompatible volumeMode.`;
}

export function msgVolumeModeMismatchOnClaim(pvName: string): string {
  return `Cannot bind PersistentVolume "${pvName}" to requested PersistentVolumeClaim due to incompatible volumeMode.`;
}

export function msgExternalProvisioning(provisioner: string): string {
  return (
    `Waiting for a volume to be created either by the external provisioner '${provisioner}' ` +
    'or manually by the system administrator. If volume creation is delayed, please verify ' +
    'that the provisioner is running and correctly registered.'
  );
}
