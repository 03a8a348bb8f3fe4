/**
 * What a VolumeSnapshotClass gives CreateSnapshot and DeleteSnapshot, as csi-snapshotter v8 reads
 * it: the class's parameters minus the `csi.storage.k8s.io/` keys it consumes (an unknown key in
 * that namespace is refused, never sent), plus the `--extra-create-metadata` keys naming the
 * VolumeSnapshot and its content; and the snapshotter Secret, whose name and namespace are
 * templates over the content's name and the VolumeSnapshot's namespace (and, in a name, its name).
 */
import { CSI_PARAMETER_PREFIX } from '@pv-controller/kube/annotations.js';
import {
  CSI_PARAM_GROUP_SNAPSHOTTER_SECRET_KEYS,
  CSI_PARAM_SNAPSHOT_CONTENT_NAME,
  CSI_PARAM_SNAPSHOT_NAME,
  CSI_PARAM_SNAPSHOT_NAMESPACE,
  CSI_PARAM_SNAPSHOTTER_LIST_SECRET_NAME,
  CSI_PARAM_SNAPSHOTTER_LIST_SECRET_NAMESPACE,
  CSI_PARAM_SNAPSHOTTER_SECRET_NAME,
  CSI_PARAM_SNAPSHOTTER_SECRET_NAMESPACE,
} from '@pv-controller/kube/snapshot-types.js';
import { PluginError } from '../api/errors.js';
import type { SecretRef } from './secrets.js';
import { isDns1123Label, isDns1123Subdomain } from './templates.js';

/** The `csi.storage.k8s.io/` keys a VolumeSnapshotClass may carry; every other key in that namespace is refused. */
const CONSUMED: ReadonlySet<string> = new Set([
  CSI_PARAM_SNAPSHOTTER_SECRET_NAME,
  CSI_PARAM_SNAPSHOTTER_SECRET_NAMESPACE,
  CSI_PARAM_SNAPSHOTTER_LIST_SECRET_NAME,
  CSI_PARAM_SNAPSHOTTER_LIST_SECRET_NAMESPACE,
  ...CSI_PARAM_GROUP_SNAPSHOTTER_SECRET_KEYS,
]);

/** Who a snapshot is cut for: the VolumeSnapshot (absent when only the content is known) and its content. */
export interface SnapshotTemplateContext {
  contentName: string;
  snapshot?: { name: string; namespace: string };
}

/** CreateSnapshot's parameters; PluginError 'InvalidParameter' (not retryable) for an unknown reserved key. */
export function createSnapshotParameters(classParameters: Record<string, string>, ctx: Required<SnapshotTemplateContext>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(classParameters)) {
    if (!key.startsWith(CSI_PARAMETER_PREFIX)) out[key] = value;
    else if (!CONSUMED.has(key)) {
      throw new PluginError('InvalidParameter', `VolumeSnapshotClass parameter "${key}": unknown parameter in the reserved namespace "${CSI_PARAMETER_PREFIX}"`, false);
    }
  }
  out[CSI_PARAM_SNAPSHOT_NAME] = ctx.snapshot.name;
  out[CSI_PARAM_SNAPSHOT_NAMESPACE] = ctx.snapshot.namespace;
  out[CSI_PARAM_SNAPSHOT_CONTENT_NAME] = ctx.contentName;
  return out;
}

const TOKEN = /\$\{([^}]*)\}/g;

function resolve(template: string, values: Record<string, string>, what: string): string {
  const missing: string[] = [];
  const value = template.replace(TOKEN, (_whole, token: string) => {
    const v = values[token];
    if (v === undefined) missing.push(token);
    return v ?? '';
  });
  if (missing.length > 0) {
    throw new PluginError('InvalidParameter', `snapshotter secret ${what} "${template}" has tokens without a value: ${missing.map((t) => `\${${t}}`).join(', ')}`, false);
  }
  return value;
}

/**
 * The snapshotter Secret the class names (`csi.storage.k8s.io/snapshotter-secret-name|namespace`),
 * resolved; undefined when it names none. Both keys or neither, neither empty; the result a
 * DNS-1123 subdomain (name) and label (namespace): otherwise PluginError 'InvalidParameter'.
 */
export function snapshotterSecretRef(classParameters: Record<string, string>, ctx: SnapshotTemplateContext): SecretRef | undefined {
  const nameTemplate = classParameters[CSI_PARAM_SNAPSHOTTER_SECRET_NAME];
  const namespaceTemplate = classParameters[CSI_PARAM_SNAPSHOTTER_SECRET_NAMESPACE];
  if (nameTemplate === undefined && namespaceTemplate === undefined) return undefined;
  if (nameTemplate === undefined || namespaceTemplate === undefined) {
    throw new PluginError('InvalidParameter', `snapshotter secrets need both "${CSI_PARAM_SNAPSHOTTER_SECRET_NAME}" and "${CSI_PARAM_SNAPSHOTTER_SECRET_NAMESPACE}"`, false);
  }
  if (nameTemplate === '' || namespaceTemplate === '') throw new PluginError('InvalidParameter', 'snapshotter secrets are named with an empty name or namespace', false);
  // The namespace never takes what the VolumeSnapshot's author chose (its name); the Secret's name may.
  const namespaceValues: Record<string, string> = { 'volumesnapshotcontent.name': ctx.contentName };
  const nameValues: Record<string, string> = { 'volumesnapshotcontent.name': ctx.contentName };
  if (ctx.snapshot) {
    namespaceValues['volumesnapshot.namespace'] = ctx.snapshot.namespace;
    Object.assign(nameValues, { 'volumesnapshot.namespace': ctx.snapshot.namespace, 'volumesnapshot.name': ctx.snapshot.name });
  }
  const namespace = resolve(namespaceTemplate, namespaceValues, 'namespace');
  if (!isDns1123Label(namespace)) throw new PluginError('InvalidParameter', `snapshotter secret namespace "${namespaceTemplate}" resolved to "${namespace}", which is not a valid namespace name`, false);
  const name = resolve(nameTemplate, nameValues, 'name');
  if (!isDns1123Subdomain(name)) throw new PluginError('InvalidParameter', `snapshotter secret name "${nameTemplate}" resolved to "${name}", which is not a valid secret name`, false);
  return { name, namespace };
}
