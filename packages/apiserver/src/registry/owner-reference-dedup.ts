/**
 * kube-apiserver's dedupOwnerReferences (endpoints/handlers/rest.go): before a create or update is
 * validated, and after a patch is applied, an owner reference equal to an earlier one with the
 * same uid is dropped and the request gets a Warning naming the repeated uids. Upstream compares
 * each such reference with every kept one; here each is one canonical string in a set, so 3,700
 * copies of one reference cost 3,700 lookups.
 */
import type { ObjectMeta } from '@pv-controller/kube/types.js';
import { canonicalJson } from '../resources/object-utils.js';

const WARNING_HEAD = '.metadata.ownerReferences contains duplicate entries';
const WARNING_TAIL = 'API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed:';

/** When the duplicates were found: before admission (create, update) or after it (patch, apply). */
type DedupStage = 'request' | 'after-admission';

/** Drops repeated owner references from `meta`; the Warning to send when it dropped any. */
export function dedupOwnerReferences(meta: ObjectMeta, stage: DedupStage): string | undefined {
  const refs = meta.ownerReferences;
  if (!Array.isArray(refs) || refs.length < 2) return undefined;
  const seenByUid = new Map<string, Set<string>>();
  const kept: typeof refs = [];
  const duplicates: string[] = [];
  for (const ref of refs) {
    const uid = String(ref?.uid ?? '');
    const identity = canonicalJson(ref);
    const seen = seenByUid.get(uid);
    if (seen?.has(identity)) {
      duplicates.push(uid);
      continue;
    }
    if (seen) seen.add(identity);
    else seenByUid.set(uid, new Set([identity]));
    kept.push(ref);
  }
  if (duplicates.length === 0) return undefined;
  meta.ownerReferences = kept;
  const head = stage === 'request' ? WARNING_HEAD : `${WARNING_HEAD} after mutating admission happens`;
  return `${head}; ${WARNING_TAIL} ${duplicates.join(', ')}`;
}
