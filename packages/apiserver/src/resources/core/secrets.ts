/**
 * Secret (core/v1): what the CSI client reads for a StorageClass's
 * `csi.storage.k8s.io/provisioner-secret-name|namespace` parameters. As kube-apiserver serves it:
 * `type` defaults to Opaque and is immutable; `stringData` is merged into `data` (the
 * v1-to-internal conversion) and never stored or returned; data keys are config keys and all
 * values together at most MaxSecretSize bytes, checked before anything is stored; each common
 * type's required keys; `immutable: true` freezes data and itself; `type` is a field label.
 * A TLS Secret whose key pair does not load is accepted with a warning. A delete answers a
 * Status, as Secrets' store has no ReturnDeletedObject.
 */
import { isConfigMapKey } from '@pv-controller/kube/name-validation.js';
import type { KubeObject, StatusCause } from '@pv-controller/kube/types.js';
import { fieldLabelTable, jsonEqual, resourceInfo } from '../common.js';
import { appendCauses, forbidden, immutable, invalid, tooLong } from '../../api/field-errors.js';
import { nameIsDNSSubdomain, validateObjectMeta, validateObjectMetaUpdate } from '../object-meta.js';
import { AGE_COLUMN, NAME_COLUMN, age, column, field } from '../printing.js';
import type { ResourceStrategy } from '../strategy.js';
import { x509KeyPairError } from './secret-tls.js';
import { dataBytes, SECRET_TYPE_OPAQUE, SECRET_TYPE_TLS, TLS_CERT_KEY, TLS_PRIVATE_KEY_KEY, validateSecretType, type SecretData } from './secret-types.js';

/** core.MaxSecretSize: the bytes of all data values together. */
export const MAX_SECRET_SIZE = 1024 * 1024;

interface Secret extends KubeObject {
  type?: string;
  data?: SecretData;
  stringData?: Record<string, string>;
  immutable?: boolean;
}

const asSecret = (obj: KubeObject): Secret => obj as Secret;

/** SetDefaults_Secret, then Convert_v1_Secret_To_core_Secret: stringData overwrites data, and is gone. */
function defaultSecret(obj: KubeObject): void {
  const secret = asSecret(obj);
  if (!secret.type) secret.type = SECRET_TYPE_OPAQUE;
  const strings = secret.stringData;
  delete secret.stringData;
  if (strings && Object.keys(strings).length > 0) {
    const data: SecretData = { ...(secret.data ?? {}) };
    for (const [key, value] of Object.entries(strings)) data[key] = Buffer.from(value, 'utf8').toString('base64');
    secret.data = data;
  }
  // `data` is omitempty: an empty map is not stored.
  if (secret.data && Object.keys(secret.data).length === 0) delete secret.data;
}

function validateSecret(obj: KubeObject): StatusCause[] {
  const secret = asSecret(obj);
  const causes = validateObjectMeta(secret.metadata, true, nameIsDNSSubdomain);
  const data = secret.data ?? {};
  let totalSize = 0;
  for (const [key, value] of Object.entries(data)) {
    for (const message of isConfigMapKey(key)) causes.push(invalid(`data[${key}]`, key, message));
    totalSize += dataBytes(value).length;
  }
  if (totalSize > MAX_SECRET_SIZE) causes.push(tooLong('data', MAX_SECRET_SIZE));
  return appendCauses(causes, validateSecretType(secret.type ?? '', data, secret.metadata.annotations));
}

function validateSecretUpdate(next: KubeObject, prev: KubeObject): StatusCause[] {
  const n = asSecret(next);
  const p = asSecret(prev);
  const causes = validateObjectMetaUpdate(n.metadata, p.metadata);
  if (n.type !== p.type) causes.push(immutable('type', n.type ?? ''));
  if (p.immutable === true) {
    if (n.immutable !== true) causes.push(forbidden('immutable', 'field is immutable when `immutable` is set'));
    if (!jsonEqual(n.data ?? null, p.data ?? null)) causes.push(forbidden('data', 'field is immutable when `immutable` is set'));
  }
  return appendCauses(causes, validateSecret(next));
}

/** warningsForSecret: a TLS Secret whose key pair Go's tls.X509KeyPair refuses is accepted with a warning. */
function warnings(obj: KubeObject): string[] {
  const secret = asSecret(obj);
  if (secret.type !== SECRET_TYPE_TLS) return [];
  const error = x509KeyPairError(dataBytes(secret.data?.[TLS_CERT_KEY]), dataBytes(secret.data?.[TLS_PRIVATE_KEY_KEY]));
  return error === undefined ? [] : [error];
}

const SECRET = 'io.k8s.api.core.v1.Secret';

export const secretStrategy: ResourceStrategy = {
  info: resourceInfo({ group: '', version: 'v1', plural: 'secrets', kind: 'Secret', namespaced: true, hasStatus: false }),
  deleteAnswersStatus: true,
  warnings,
  defaults: defaultSecret,
  prepareForCreate() {},
  validateCreate: validateSecret,
  prepareForUpdate() {},
  validateUpdate: validateSecretUpdate,
  fields(obj) {
    return { type: asSecret(obj).type ?? '' };
  },
  fieldLabels: fieldLabelTable(['type', 'metadata.namespace', 'metadata.name']),
  tableColumns: [NAME_COLUMN, column('Type', field(SECRET, 'type')), column('Data', field(SECRET, 'data')), AGE_COLUMN],
  tableRow(obj, now) {
    const secret = asSecret(obj);
    return [secret.metadata.name ?? '', secret.type ?? '', Object.keys(secret.data ?? {}).length, age(secret.metadata.creationTimestamp, now)];
  },
};
