/** The messages of the expander's events (reasons: runtime/event-reasons.ts), in upstream's words where it has them. */

export const msgResizing = (pv: string, size: string): string => `External resizer is resizing volume ${pv} to ${size}`;
export const MSG_RESIZE_SUCCEEDED = 'Resize volume succeeded';
export const MSG_FS_RESIZE_REQUIRED = 'Require file system resize of volume on node';
/** kube-controller-manager's expand controller, for a volume no plugin here can grow. */
export const MSG_EXTERNAL_EXPANDING = 'waiting for an external controller to expand this PVC';
export const msgNoExpand = (plugin: string): string =>
  `volume plugin ${plugin} cannot expand volumes: it has no expand capability`;
export const msgResizeFailed = (claim: string, detail: string): string => `error expanding pvc ${claim}: ${detail}`;

export const msgModifying = (claim: string, vac: string): string => `external resizer is modifying volume ${claim} with vac ${vac}`;
export const msgModified = (claim: string, vac: string): string => `external resizer modified volume ${claim} with vac ${vac} successfully`;
export const msgNoModify = (plugin: string): string =>
  `volume plugin ${plugin} cannot modify volumes: it has no modify capability`;
/** kube-apiserver lets only CSI PVs name a VolumeAttributesClass (ValidatePersistentVolumeSpec). */
export const msgInTreeVolume = (pv: string): string =>
  `PersistentVolume ${pv} has an in-tree volume source; only a CSI volume can have a VolumeAttributesClass`;
export const msgVacDriver = (vac: string, driver: string, plugin: string): string =>
  `VolumeAttributesClass ${vac} is for driver ${driver}, not for volume plugin ${plugin}`;
