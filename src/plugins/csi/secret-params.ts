/**
 * The Secrets a StorageClass names for each CSI call, as external-provisioner v6 reads them: a
 * `csi.storage.k8s.io/<kind>-secret-name|namespace` pair per kind (four kinds also under a
 * deprecated unprefixed key), and `csi.storage.k8s.io/secret-name|namespace` as the default for a
 * kind that names none. The values are templates; templates.ts resolves them.
 */
import { CSI_PARAMETER_PREFIX } from '@pv-controller/kube/annotations.js';

export type SecretKind =
  | 'provisioner'
  | 'controller-publish'
  | 'node-stage'
  | 'node-publish'
  | 'controller-expand'
  | 'node-expand'
  | 'controller-modify';

export const SECRET_KINDS: readonly SecretKind[] = [
  'provisioner',
  'controller-publish',
  'node-stage',
  'node-publish',
  'controller-expand',
  'node-expand',
  'controller-modify',
];

interface SecretKeys {
  name: string;
  namespace: string;
  deprecatedName?: string;
  deprecatedNamespace?: string;
}

/** The pre-1.0 keys external-provisioner still reads (with a deprecation warning). */
const DEPRECATED: Partial<Record<SecretKind, string>> = {
  provisioner: 'csiProvisionerSecret',
  'controller-publish': 'csiControllerPublishSecret',
  'node-stage': 'csiNodeStageSecret',
  'node-publish': 'csiNodePublishSecret',
};

export function secretKeys(kind: SecretKind | 'default'): SecretKeys {
  const base = kind === 'default' ? `${CSI_PARAMETER_PREFIX}secret` : `${CSI_PARAMETER_PREFIX}${kind}-secret`;
  const keys: SecretKeys = { name: `${base}-name`, namespace: `${base}-namespace` };
  const old = kind === 'default' ? undefined : DEPRECATED[kind];
  if (old) Object.assign(keys, { deprecatedName: `${old}Name`, deprecatedNamespace: `${old}Namespace` });
  return keys;
}

/** Every `csi.storage.k8s.io/` key the provisioner consumes (stripped before CreateVolume). */
export function knownPrefixedSecretKeys(): string[] {
  return [...SECRET_KINDS, 'default' as const].flatMap((k) => {
    const keys = secretKeys(k);
    return [keys.name, keys.namespace];
  });
}

/** The deprecated unprefixed secret keys (passed through to the driver, as external-provisioner does). */
export function deprecatedSecretKeys(): string[] {
  return SECRET_KINDS.flatMap((k) => {
    const keys = secretKeys(k);
    return keys.deprecatedName && keys.deprecatedNamespace ? [keys.deprecatedName, keys.deprecatedNamespace] : [];
  });
}

export interface SecretTemplates {
  name: string;
  namespace: string;
}

/**
 * The name and namespace templates of one kind: undefined when the class names none (not even
 * by default); a string when the class names them wrongly (both keys of a pair, half a pair, an
 * empty value).
 */
export function secretTemplates(kind: SecretKind, parameters: Record<string, string>): SecretTemplates | undefined | string {
  const own = templatesOf(kind, parameters);
  if (own !== undefined) return own;
  return templatesOf('default', parameters);
}

function templatesOf(kind: SecretKind | 'default', parameters: Record<string, string>): SecretTemplates | undefined | string {
  const keys = secretKeys(kind);
  const names = [keys.deprecatedName, keys.name].filter((k): k is string => k !== undefined && k in parameters);
  const namespaces = [keys.deprecatedNamespace, keys.namespace].filter((k): k is string => k !== undefined && k in parameters);
  if (names.length > 1 || namespaces.length > 1) return `${kind} secrets are named twice, by the deprecated and the "${CSI_PARAMETER_PREFIX}" keys`;
  if (names.length !== namespaces.length) return `${kind} secrets need both "${keys.name}" and "${keys.namespace}"`;
  if (names.length === 0) return undefined;
  const name = parameters[names[0]];
  const namespace = parameters[namespaces[0]];
  if (name === '' || namespace === '') return `${kind} secrets are named with an empty name or namespace`;
  return { name, namespace };
}

/** The parameter a problem with `kind`'s secrets is reported under. */
export function secretParameter(kind: SecretKind, parameters: Record<string, string>): string {
  const keys = secretKeys(kind);
  if (keys.name in parameters || keys.namespace in parameters) return keys.name in parameters ? keys.name : keys.namespace;
  if (keys.deprecatedName && keys.deprecatedName in parameters) return keys.deprecatedName;
  if (keys.deprecatedNamespace && keys.deprecatedNamespace in parameters) return keys.deprecatedNamespace;
  const fallback = secretKeys('default');
  return fallback.namespace in parameters && !(fallback.name in parameters) ? fallback.namespace : fallback.name;
}
