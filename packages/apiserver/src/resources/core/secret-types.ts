/**
 * The rules ValidateSecret applies per Secret `type` (k8s.io/kubernetes pkg/apis/core/validation):
 * the keys each common type must carry, and the annotation a service-account token needs. Data
 * values arrive here as the canonical base64 the decoder wrote; nothing of them is ever echoed
 * (a bad docker config is reported as "<secret contents redacted>", as upstream does).
 */
import { ANN_SERVICE_ACCOUNT_NAME } from '@pv-controller/kube/annotations.js';
import type { StatusCause } from '@pv-controller/kube/types.js';
import { goJsonSyntaxError } from '../../api/go-json-syntax.js';
import { invalid, required } from '../../api/field-errors.js';

export const SECRET_TYPE_OPAQUE = 'Opaque';
const SERVICE_ACCOUNT_TOKEN = 'kubernetes.io/service-account-token';
const DOCKERCFG = 'kubernetes.io/dockercfg';
const DOCKER_CONFIG_JSON = 'kubernetes.io/dockerconfigjson';
const BASIC_AUTH = 'kubernetes.io/basic-auth';
const SSH_AUTH = 'kubernetes.io/ssh-auth';
export const SECRET_TYPE_TLS = 'kubernetes.io/tls';

export const TLS_CERT_KEY = 'tls.crt';
export const TLS_PRIVATE_KEY_KEY = 'tls.key';

const REDACTED = '<secret contents redacted>';

export type SecretData = Record<string, string | null>;

/** A data value's bytes (a null value is Go's nil []byte). */
export function dataBytes(value: string | null | undefined): Buffer {
  return typeof value === 'string' ? Buffer.from(value, 'base64') : Buffer.alloc(0);
}

/** Go's json.Unmarshal into map[string]interface{}: the error it gives, or undefined. */
function dockerConfigError(bytes: Buffer): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    return goJsonSyntaxError(bytes) ?? 'unexpected end of JSON input';
  }
  if (parsed === null || (typeof parsed === 'object' && !Array.isArray(parsed))) return undefined;
  const what = Array.isArray(parsed) ? 'array' : typeof parsed === 'boolean' ? 'bool' : typeof parsed;
  return `json: cannot unmarshal ${what} into Go value of type map[string]interface {}`;
}

function dockerConfig(data: SecretData, key: string): StatusCause[] {
  if (!Object.hasOwn(data, key)) return [required(`data[${key}]`)];
  const error = dockerConfigError(dataBytes(data[key]));
  return error === undefined ? [] : [invalid(`data[${key}]`, REDACTED, error)];
}

/** The causes of ValidateSecret's `switch secret.Type`. */
export function validateSecretType(type: string, data: SecretData, annotations: Record<string, string> | undefined): StatusCause[] {
  const has = (key: string): boolean => Object.hasOwn(data, key);
  switch (type) {
    case SERVICE_ACCOUNT_TOKEN:
      return annotations?.[ANN_SERVICE_ACCOUNT_NAME] ? [] : [required(`metadata.annotations[${ANN_SERVICE_ACCOUNT_NAME}]`)];
    case DOCKERCFG:
      return dockerConfig(data, '.dockercfg');
    case DOCKER_CONFIG_JSON:
      return dockerConfig(data, '.dockerconfigjson');
    case BASIC_AUTH:
      // Either may be empty, but one of them must be there.
      return has('username') || has('password') ? [] : [required('data[username]'), required('data[password]')];
    case SSH_AUTH:
      return dataBytes(data['ssh-privatekey']).length > 0 ? [] : [required('data[ssh-privatekey]')];
    case SECRET_TYPE_TLS:
      return [TLS_CERT_KEY, TLS_PRIVATE_KEY_KEY].filter((k) => !has(k)).map((k) => required(`data[${k}]`));
    default:
      return [];
  }
}
