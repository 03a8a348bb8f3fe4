/**
 * The warnings kube-apiserver gives when a custom resource is created with a finalizer whose name
 * is not a qualified name, or is not domain-qualified (validateKubeFinalizerName).
 */
import { goQuote, isQualifiedName } from '@pv-controller/kube/name-validation.js';

const STANDARD_FINALIZERS = new Set(['orphan', 'foregroundDeletion', 'kubernetes']);
const FIELD = 'metadata.finalizers';

export function finalizerWarnings(finalizers: readonly string[]): string[] {
  const out: string[] = [];
  for (const name of [...new Set(finalizers)].sort()) {
    for (const msg of isQualifiedName(name)) out.push(`${FIELD}: ${goQuote(name)}: ${msg}`);
    if (name.includes('/') || STANDARD_FINALIZERS.has(name)) continue;
    const advice = name.includes('.') ? 'prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers'
      : 'prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers';
    out.push(`${FIELD}: ${goQuote(name)}: ${advice}`);
  }
  return out;
}
