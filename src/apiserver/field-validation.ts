/**
 * Server-side field validation (`?fieldValidation=Strict|Warn|Ignore`). The real server decodes
 * into Go structs, so unknown fields are dropped, reported as warnings, or (Strict) rejected with
 * `strict decoding error: unknown field "spec.foo"`. We know the top-level, metadata and spec
 * fields of the kinds we serve; deeper levels are carried through unchecked.
 */
import { BadRequestError } from '../kube/errors.js';
import type { KubeObject } from '../kube/types.js';
import { isPlainObject } from './object-utils.js';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

const OBJECT_META = [
  'name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation',
  'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations',
  'ownerReferences', 'finalizers', 'managedFields',
];
const SPEC_STATUS = ['spec', 'status'];

const PV_SOURCES = [
  'gcePersistentDisk', 'awsElasticBlockStore', 'hostPath', 'glusterfs', 'nfs', 'rbd', 'iscsi', 'cinder',
  'cephfs', 'fc', 'flocker', 'flexVolume', 'azureFile', 'vsphereVolume', 'quobyte', 'azureDisk',
  'photonPersistentDisk', 'portworxVolume', 'scaleIO', 'local', 'storageos', 'csi',
];

interface KindFields {
  top: string[];
  spec?: string[];
}

/** Known fields by "group/Kind" (core group is ''). */
const KNOWN: Record<string, KindFields> = {
  '/PersistentVolume': {
    top: SPEC_STATUS,
    spec: [
      'capacity', 'accessModes', 'claimRef', 'persistentVolumeReclaimPolicy', 'storageClassName',
      'mountOptions', 'volumeMode', 'nodeAffinity', 'volumeAttributesClassName', ...PV_SOURCES,
    ],
  },
  '/PersistentVolumeClaim': {
    top: SPEC_STATUS,
    spec: [
      'accessModes', 'selector', 'resources', 'volumeName', 'storageClassName', 'volumeMode',
      'dataSource', 'dataSourceRef', 'volumeAttributesClassName',
    ],
  },
  '/Namespace': { top: SPEC_STATUS },
  '/Pod': { top: SPEC_STATUS },
  '/Node': { top: SPEC_STATUS },
  '/Event': {
    top: [
      'involvedObject', 'reason', 'message', 'source', 'firstTimestamp', 'lastTimestamp', 'count', 'type',
      'eventTime', 'series', 'action', 'related', 'reportingComponent', 'reportingInstance',
    ],
  },
  'events.k8s.io/Event': {
    top: [
      'eventTime', 'series', 'reportingController', 'reportingInstance', 'action', 'reason', 'regarding',
      'related', 'note', 'type', 'deprecatedSource', 'deprecatedFirstTimestamp', 'deprecatedLastTimestamp',
      'deprecatedCount',
    ],
  },
  'storage.k8s.io/StorageClass': {
    top: [
      'provisioner', 'parameters', 'reclaimPolicy', 'mountOptions', 'allowVolumeExpansion',
      'volumeBindingMode', 'allowedTopologies',
    ],
  },
  'coordination.k8s.io/Lease': {
    top: ['spec'],
    spec: [
      'holderIdentity', 'leaseDurationSeconds', 'acquireTime', 'renewTime', 'leaseTransitions', 'strategy',
      'preferredHolder',
    ],
  },
};

export function parseFieldValidation(value: string | null): FieldValidation {
  if (value === null || value === '') return 'Warn';
  if (value === 'Strict' || value === 'Warn' || value === 'Ignore') return value;
  throw new BadRequestError(`fieldValidation parameter unsupported: ${value}`);
}

/** Removes unknown fields from `obj` (in place) and returns their paths. */
export function pruneUnknownFields(obj: KubeObject, group: string, kind: string): string[] {
  const known = KNOWN[`${group}/${kind}`];
  const unknown: string[] = [];
  const prune = (target: Record<string, unknown>, allowed: string[], prefix: string): void => {
    for (const key of Object.keys(target)) {
      if (!allowed.includes(key)) {
        unknown.push(prefix + key);
        delete target[key];
      }
    }
  };
  if (known) prune(obj, ['apiVersion', 'kind', 'metadata', ...known.top], '');
  if (isPlainObject(obj.metadata)) prune(obj.metadata, OBJECT_META, 'metadata.');
  if (known?.spec && isPlainObject(obj.spec)) prune(obj.spec, known.spec, 'spec.');
  return unknown;
}

/**
 * Applies the requested validation level to `obj`: Strict throws 400 on any unknown field; Warn
 * returns the warnings to send; all levels drop the unknown fields.
 */
export function enforceFieldValidation(
  obj: KubeObject,
  group: string,
  kind: string,
  level: FieldValidation,
): string[] {
  const unknown = pruneUnknownFields(obj, group, kind);
  if (unknown.length === 0 || level === 'Ignore') return [];
  const messages = unknown.map((path) => `unknown field "${path}"`);
  if (level === 'Strict') throw new BadRequestError(`strict decoding error: ${messages.join(', ')}`);
  return messages;
}

/** `Warning` header values, as kube-apiserver formats them. */
export function warningHeaders(messages: string[]): string[] {
  return messages.map((m) => `299 - ${JSON.stringify(m)}`);
}
