/**
 * CSINode (storage.k8s.io/v1, cluster-scoped): what each node's kubelet records of the CSI drivers
 * registered there — the driver's own id for the node, the topology keys it reports (how
 * external-provisioner learns a driver's topology) and how many volumes it can attach. Named
 * after its Node and usually owned by it (the garbage collector removes it with the Node).
 * ValidateCSINode / ValidateCSINodeUpdate as kube-apiserver v1.37: a driver already listed keeps
 * its name, nodeID and topologyKeys, only allocatable may change (MutableCSINodeAllocatableCount,
 * on by default); status starts empty and its storageHealth is dropped (CSIVolumeHealth is off).
 */
import { isQualifiedName } from '@pv-controller/kube/name-validation.js';
import type { KubeObject, StatusCause } from '@pv-controller/kube/types.js';
import { keepStored, resetObjectMetaForStatus, resourceInfo } from '../common.js';
import { appendCauses, duplicate, invalid, invalidEach, invalidRendered, required } from '../../api/field-errors.js';
import { nameIsDNSSubdomain, validateObjectMeta, validateObjectMetaUpdate } from '../object-meta.js';
import { AGE_COLUMN, NAME_COLUMN, age, column } from '../printing.js';
import type { ResourceStrategy } from '../strategy.js';
import { validateCSIDriverName } from '../core/volume-sources.js';

/** csiNodeIDMaxLength: the longest nodeID a driver may report. */
export const CSI_NODE_ID_MAX_LENGTH = 256;

interface CSINodeDriver {
  name?: string;
  nodeID?: string;
  topologyKeys?: string[] | null;
  allocatable?: { count?: number };
}

interface CSINode extends KubeObject {
  spec?: { drivers?: CSINodeDriver[] | null };
  status?: { storageHealth?: unknown[] };
}

const asCSINode = (obj: KubeObject): CSINode => obj as CSINode;

function validateNodeID(nodeID: string, field: string): StatusCause[] {
  if (nodeID.length === 0) return [required(field)];
  if (nodeID.length > CSI_NODE_ID_MAX_LENGTH) return [invalid(field, nodeID, `must be ${CSI_NODE_ID_MAX_LENGTH} characters or less`)];
  return [];
}

/** Topology keys are reported at the driver's own path, as upstream does. */
function validateTopologyKeys(keys: string[], field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const seen = new Set<string>();
  for (const key of keys) {
    if (key.length === 0) causes.push(required(field));
    if (seen.has(key)) causes.push(duplicate(field, key));
    seen.add(key);
    appendCauses(causes, invalidEach(field, key, isQualifiedName(key)));
  }
  return causes;
}

function validateDrivers(drivers: CSINodeDriver[]): StatusCause[] {
  const causes: StatusCause[] = [];
  const names = new Set<string>();
  drivers.forEach((driver, i) => {
    const field = `spec.drivers[${i}]`;
    const name = driver.name ?? '';
    appendCauses(causes, validateCSIDriverName(name, `${field}.name`), validateNodeID(driver.nodeID ?? '', `${field}.nodeID`));
    const count = driver.allocatable?.count;
    if (count !== undefined && count < 0) causes.push(invalid(`${field}.allocatable.count`, count, 'must be greater than or equal to 0'));
    if (names.has(name)) causes.push(duplicate(`${field}.name`, name));
    names.add(name);
    appendCauses(causes, validateTopologyKeys(driver.topologyKeys ?? [], field));
  });
  return causes;
}

function validateCSINode(obj: KubeObject): StatusCause[] {
  const node = asCSINode(obj);
  return appendCauses(validateObjectMeta(node.metadata, false, nameIsDNSSubdomain), validateDrivers(node.spec?.drivers ?? []));
}

/** The internal CSINodeDriver as Go's json.Marshal prints it in "field is immutable" (no json tags). */
function goDriverText(d: CSINodeDriver): string {
  return JSON.stringify({ Name: d.name ?? '', NodeID: d.nodeID ?? '', TopologyKeys: d.topologyKeys ?? null, Allocatable: null });
}

/** A driver listed before and after keeps everything but allocatable. */
function validateDriversUnchanged(next: CSINodeDriver[], prev: CSINodeDriver[]): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const old of prev) {
    for (const now of next) {
      if (now.name !== old.name) continue;
      if (goDriverText(now) !== goDriverText(old)) causes.push(invalidRendered('spec.drivers', goDriverText(now), 'field is immutable'));
    }
  }
  return causes;
}

/**
 * drivers and topologyKeys have no omitempty, and an empty list reads back from storage as nil:
 * both are null once stored. (After managedFields are taken: a write of `[]` owns the list.)
 */
function storedLists(obj: KubeObject): void {
  const node = asCSINode(obj);
  const drivers = node.spec?.drivers ?? [];
  for (const d of drivers) if ((d.topologyKeys ?? []).length === 0) d.topologyKeys = null;
  node.spec = { ...(node.spec ?? {}), drivers: drivers.length > 0 ? drivers : null };
}

/** dropDisabledCSINodeFields: CSIVolumeHealth is off, so storageHealth is kept only where it already was. */
function dropStorageHealth(next: KubeObject, prev: KubeObject): void {
  const status = asCSINode(next).status;
  if (status && (asCSINode(prev).status?.storageHealth ?? []).length === 0) delete status.storageHealth;
}

export const csiNodeStrategy: ResourceStrategy = {
  info: resourceInfo({ group: 'storage.k8s.io', version: 'v1', plural: 'csinodes', kind: 'CSINode', namespaced: false, hasStatus: true, statusResetsMetadata: true }),
  defaults(obj) {
    const node = asCSINode(obj);
    if (typeof node.status !== 'object' || node.status === null) node.status = {};
  },
  prepareForCreate(obj) {
    asCSINode(obj).status = {};
    storedLists(obj);
  },
  validateCreate: validateCSINode,
  prepareForUpdate(next, prev) {
    keepStored(next, prev, 'status');
    storedLists(next);
  },
  validateUpdate(next, prev) {
    const causes = appendCauses(validateCSINode(next), validateObjectMetaUpdate(next.metadata, prev.metadata));
    return appendCauses(causes, validateDriversUnchanged(asCSINode(next).spec?.drivers ?? [], asCSINode(prev).spec?.drivers ?? []));
  },
  prepareForStatusUpdate(next, prev) {
    keepStored(next, prev, 'spec');
    resetObjectMetaForStatus(next, prev);
    dropStorageHealth(next, prev);
  },
  validateStatusUpdate(next, prev) {
    return validateObjectMetaUpdate(next.metadata, prev.metadata);
  },
  fields() {
    return {};
  },
  tableColumns: [
    NAME_COLUMN,
    column('Drivers', 'Drivers indicates the number of CSI drivers registered on the node', { type: 'integer' }),
    AGE_COLUMN,
  ],
  tableRow(obj, now) {
    const node = asCSINode(obj);
    return [node.metadata.name ?? '', (node.spec?.drivers ?? []).length, age(node.metadata.creationTimestamp, now)];
  },
};
