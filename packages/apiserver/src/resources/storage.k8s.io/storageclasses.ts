/**
 * StorageClass (storage.k8s.io/v1): defaulting (reclaimPolicy Delete, volumeBindingMode
 * Immediate), ValidateStorageClass / ValidateStorageClassUpdate, `kubectl get sc` columns.
 */
import { isQualifiedName } from '@pv-controller/kube/name-validation.js';
import type { KubeObject, StatusCause, StorageClass, TopologySelectorTerm } from '@pv-controller/kube/types.js';
import { isDefaultStorageClass } from '@pv-controller/kube/volume-helpers.js';
import { jsonEqual, resourceInfo } from '../common.js';
import { appendCauses, duplicate, immutable, invalid, invalidEach, notSupported, required, tooLong } from '../../api/field-errors.js';
import { nameIsDNSSubdomain, validateObjectMeta, validateObjectMetaUpdate } from '../object-meta.js';
import { AGE_COLUMN, NAME_COLUMN, age, column, field } from '../printing.js';
import type { ResourceStrategy } from '../strategy.js';

const SC = 'io.k8s.api.storage.v1.StorageClass';

const SC_RECLAIM_POLICIES = ['Delete', 'Retain'];
const BINDING_MODES = ['Immediate', 'WaitForFirstConsumer'];
const MAX_PARAMETERS = 512;
const MAX_PARAMETERS_SIZE = 256 * 1024;

const asSC = (obj: KubeObject): StorageClass => obj as StorageClass;

/** validateProvisioner: a StorageClass's provisioner, a VolumeAttributesClass's driverName. */
export function validateProvisioner(provisioner: unknown, field = 'provisioner'): StatusCause[] {
  if (typeof provisioner !== 'string' || provisioner.length === 0) return [required(field)];
  const lower = provisioner.toLowerCase();
  return invalidEach(field, lower, isQualifiedName(lower));
}

/** validateParameters (StorageClass, VolumeAttributesClass): at most 512 entries of 256 KiB in all, no empty key. */
export function validateParameters(params: Record<string, string> | undefined): StatusCause[] {
  const entries = Object.entries(params ?? {});
  if (entries.length > MAX_PARAMETERS) return [tooLong('parameters', MAX_PARAMETERS)];
  const causes: StatusCause[] = [];
  let size = 0;
  for (const [k, v] of entries) {
    if (k.length < 1) causes.push(invalid('parameters', k, 'field can not be empty.'));
    size += Buffer.byteLength(k) + Buffer.byteLength(String(v));
  }
  if (size > MAX_PARAMETERS_SIZE) causes.push(tooLong('parameters', MAX_PARAMETERS_SIZE));
  return causes;
}

/** ValidateTopologySelectorTerm: the term's causes, and its key → values map as one comparable string. */
function validateTopologyTerm(term: TopologySelectorTerm | undefined, at: string): { causes: StatusCause[]; identity: string } {
  const causes: StatusCause[] = [];
  const byKey = new Map<string, string[]>();
  (term?.matchLabelExpressions ?? []).forEach((req, i) => {
    const reqAt = `${at}.matchLabelExpressions[${i}]`;
    const values = Array.isArray(req.values) ? req.values : [];
    if (values.length === 0) causes.push(required(`${reqAt}.values`));
    const seen = new Set<string>();
    values.forEach((v, j) => {
      if (seen.has(v)) causes.push(duplicate(`${reqAt}.values[${j}]`, v));
      seen.add(v);
    });
    appendCauses(causes, invalidEach(`${reqAt}.key`, req.key, isQualifiedName(String(req.key ?? ''))));
    if (byKey.has(req.key)) causes.push(duplicate(`${reqAt}.key`, req.key));
    byKey.set(req.key, [...seen].sort());
  });
  const normalized = [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { causes, identity: JSON.stringify(normalized) };
}

/**
 * validateAllowedTopologies: a term equal to an earlier one (as a key → set-of-values map) is a
 * duplicate. Upstream compares each term with every earlier one (and so answers k(k-1)/2 causes
 * for k equal terms); here each term's map is one string looked up in a set, and a duplicate term
 * gets one cause, which reads the same in the message. Upstream also compares with the empty
 * maps it preallocates, so a term without expressions is always a duplicate.
 */
function validateAllowedTopologies(terms: StorageClass['allowedTopologies']): StatusCause[] {
  const causes: StatusCause[] = [];
  const seen = new Set<string>();
  (terms ?? []).forEach((term, i) => {
    const { causes: termCauses, identity } = validateTopologyTerm(term, `allowedTopologies[${i}]`);
    appendCauses(causes, termCauses);
    if (seen.has(identity) || identity === '[]') causes.push(duplicate(`allowedTopologies[${i}].matchLabelExpressions`, ''));
    seen.add(identity);
  });
  return causes;
}

function validateSC(obj: KubeObject): StatusCause[] {
  const sc = asSC(obj);
  const causes = validateObjectMeta(sc.metadata, false, nameIsDNSSubdomain);
  appendCauses(causes, validateProvisioner(sc.provisioner));
  appendCauses(causes, validateParameters(sc.parameters));
  if (sc.reclaimPolicy && !SC_RECLAIM_POLICIES.includes(sc.reclaimPolicy)) {
    causes.push(notSupported('reclaimPolicy', sc.reclaimPolicy, SC_RECLAIM_POLICIES));
  }
  if (sc.volumeBindingMode === undefined || sc.volumeBindingMode === null) causes.push(required('volumeBindingMode'));
  else if (!BINDING_MODES.includes(sc.volumeBindingMode)) causes.push(notSupported('volumeBindingMode', sc.volumeBindingMode, BINDING_MODES));
  appendCauses(causes, validateAllowedTopologies(sc.allowedTopologies));
  return causes;
}

function validateSCUpdate(next: StorageClass, prev: StorageClass): StatusCause[] {
  const causes = validateObjectMetaUpdate(next.metadata, prev.metadata);
  // kube-apiserver 1.37 checks these declaratively (+k8s:immutable), in this order; the value prints as null.
  if (next.provisioner !== prev.provisioner) causes.push(immutable('provisioner', null));
  if (!jsonEqual(next.parameters ?? {}, prev.parameters ?? {})) causes.push(immutable('parameters', null));
  if (next.reclaimPolicy !== prev.reclaimPolicy) causes.push(immutable('reclaimPolicy', null));
  if (next.volumeBindingMode !== prev.volumeBindingMode) causes.push(immutable('volumeBindingMode', next.volumeBindingMode));
  return causes;
}

export const storageClassStrategy: ResourceStrategy = {
  info: resourceInfo({ group: 'storage.k8s.io', version: 'v1', plural: 'storageclasses', kind: 'StorageClass',
    namespaced: false, shortNames: ['sc'], hasStatus: false }),

  defaults(obj) {
    const sc = asSC(obj);
    if (sc.reclaimPolicy === undefined || sc.reclaimPolicy === null) sc.reclaimPolicy = 'Delete';
    if (sc.volumeBindingMode === undefined || sc.volumeBindingMode === null) sc.volumeBindingMode = 'Immediate';
  },
  prepareForCreate() {},
  validateCreate: validateSC,
  prepareForUpdate() {},
  validateUpdate(next, prev) {
    return [...validateSC(next), ...validateSCUpdate(asSC(next), asSC(prev))];
  },
  fields() {
    return {};
  },

  tableColumns: [
    NAME_COLUMN,
    column('Provisioner', field(SC, 'provisioner')),
    column('ReclaimPolicy', field(SC, 'reclaimPolicy')),
    column('VolumeBindingMode', field(SC, 'volumeBindingMode')),
    // kube-apiserver declares this column a string though its cells are booleans.
    column('AllowVolumeExpansion', field(SC, 'allowVolumeExpansion')),
    AGE_COLUMN,
  ],

  tableRow(obj, now) {
    const sc = asSC(obj);
    const name = (sc.metadata.name ?? '') + (isDefaultStorageClass(sc) ? ' (default)' : '');
    return [
      name,
      sc.provisioner ?? '',
      sc.reclaimPolicy ?? 'Delete',
      sc.volumeBindingMode ?? 'Immediate',
      sc.allowVolumeExpansion === true,
      age(sc.metadata.creationTimestamp, now),
    ];
  },
};
