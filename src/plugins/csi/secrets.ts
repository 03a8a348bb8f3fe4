/**
 * Secret references of a CSI volume, resolved from the class's templates at provisioning (the
 * PV keeps them; the claim may be gone later), and the Secrets' data a call carries. A Secret
 * that does not exist (yet) is a retryable failure naming it: an admin may still create it.
 */
import { PluginError } from '../api/errors.js';
import { type SecretKind, secretTemplates } from './secret-params.js';
import { resolveTemplate, type TemplateContext } from './templates.js';

export interface SecretRef {
  name: string;
  namespace: string;
}

export type SecretReader = (namespace: string, name: string) => Promise<Record<string, string> | undefined>;

/** The reference the class names for `kind`, resolved for this PV and claim; undefined when it names none. */
export function resolveSecretRef(kind: SecretKind, parameters: Record<string, string>, ctx: TemplateContext): SecretRef | undefined {
  const templates = secretTemplates(kind, parameters);
  if (templates === undefined) return undefined;
  if (typeof templates === 'string') throw new PluginError('InvalidParameter', templates, false);
  const namespace = resolveTemplate(templates.namespace, 'namespace', ctx);
  if ('error' in namespace) throw new PluginError('InvalidParameter', `${kind} secret namespace: ${namespace.error}`, false);
  const name = resolveTemplate(templates.name, 'name', ctx);
  if ('error' in name) throw new PluginError('InvalidParameter', `${kind} secret name: ${name.error}`, false);
  return { name: name.value, namespace: namespace.value };
}

/** The data of a referenced Secret ({} without a reference); a missing Secret is retryable. */
export async function secretData(read: SecretReader, ref: SecretRef | undefined, purpose: string): Promise<Record<string, string>> {
  if (!ref) return {};
  const data = await read(ref.namespace, ref.name);
  if (data === undefined) {
    throw new PluginError('Transient', `${purpose} secret "${ref.namespace}/${ref.name}" does not exist`, true);
  }
  return data;
}

/** A Secret reference kept in a PV's `spec.csi`, read back (undefined when absent or malformed). */
export function refFromSource(value: unknown): SecretRef | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { name, namespace } = value as Record<string, unknown>;
  return typeof name === 'string' && typeof namespace === 'string' && name !== '' ? { name, namespace } : undefined;
}
