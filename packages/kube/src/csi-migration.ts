/**
 * CSI migration (KEP-625): the in-tree volume plugins whose every operation Kubernetes redirects to
 * a CSI driver. kube-controller-manager 1.37 treats these provisioner names as migrated
 * unconditionally (csimigration.PluginManager.IsMigrationEnabledForPlugin: all GA, the in-tree code
 * removed) and hands their claims to the driver's external provisioner under the driver's name
 * (csi-translation-lib's GetCSINameFromInTreeName).
 */
export const CSI_MIGRATED_PLUGINS: Readonly<Record<string, string>> = Object.freeze({
  'kubernetes.io/aws-ebs': 'ebs.csi.aws.com',
  'kubernetes.io/gce-pd': 'pd.csi.storage.gke.io',
  'kubernetes.io/cinder': 'cinder.csi.openstack.org',
  'kubernetes.io/azure-disk': 'disk.csi.azure.com',
  'kubernetes.io/azure-file': 'file.csi.azure.com',
  'kubernetes.io/vsphere-volume': 'csi.vsphere.vmware.com',
  'kubernetes.io/portworx-volume': 'pxd.portworx.com',
});

/** The CSI driver an in-tree provisioner name migrated to, or undefined when it is not a migrated one. */
export function csiMigrationTarget(provisioner: string): string | undefined {
  return Object.hasOwn(CSI_MIGRATED_PLUGINS, provisioner) ? CSI_MIGRATED_PLUGINS[provisioner] : undefined;
}
