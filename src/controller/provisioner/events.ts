/**
 * Event messages of dynamic provisioning, in the words of upstream's in-tree provisioner
 * (`pv_controller.go`); the reasons are runtime/event-reasons.ts.
 */

export function msgProvisioning(plugin: string, claimKey: string): string {
  return `${plugin} is provisioning volume for claim "${claimKey}"`;
}

export function msgProvisioned(pvName: string, plugin: string): string {
  return `Successfully provisioned volume ${pvName} using ${plugin}`;
}

export function msgProvisionFailed(className: string, detail: string): string {
  return `Failed to provision volume with StorageClass "${className}": ${detail}`;
}

/** kube-controller-manager's refusal when a class asks for mount options its plugin cannot apply. */
export function msgMountOptionsUnsupported(className: string, mountOptions: string[]): string {
  return `Mount options are not supported by the provisioner but StorageClass "${className}" has mount options [${mountOptions.join(' ')}]`;
}

export function msgSavePvFailed(claimKey: string, detail: string): string {
  return `Error creating provisioned PV object for claim ${claimKey}: ${detail}. Deleting the volume.`;
}

export function msgCleanupFailed(claimKey: string, detail: string): string {
  return `Error cleaning provisioned volume for claim ${claimKey}: ${detail}. Please delete manually.`;
}

export function msgCleanedUp(backingName: string, why: string): string {
  return `Deleted backing volume ${backingName}: ${why}`;
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
