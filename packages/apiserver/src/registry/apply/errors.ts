/**
 * The errors of server-side apply, worded as kube-apiserver words them: a configuration that does
 * not fit the kind's schema (a 500 there, from structured-merge-diff's typed conversion), and
 * conflicts with other managers (409, one cause per field and manager).
 */
import { ApiError } from '@pv-controller/kube/errors.js';
import type { StatusCause } from '@pv-controller/kube/types.js';

/** A configuration value that does not fit the schema; the message names its path. */
export class ApplyTypeError extends Error {}

export interface ManagerConflict {
  /** The manager's identity as conflicts print it: `"bob"`, `"kubectl" using v1`. */
  manager: string;
  /** Sort key of the manager: structured-merge-diff sorts managers by their encoded identity. */
  managerKey: string;
  field: string;
}

export function applyConflictError(conflicts: ManagerConflict[]): ApiError {
  const causes: StatusCause[] = conflicts.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${c.manager}`,
    field: c.field,
  }));
  return new ApiError(409, 'Conflict', conflictMessage(conflicts), { causes });
}

function conflictMessage(conflicts: ManagerConflict[]): string {
  if (conflicts.length === 1) {
    const [c] = conflicts;
    return `Apply failed with 1 conflict: conflict with ${c.manager}: ${c.field}`;
  }
  const byManager = new Map<string, ManagerConflict[]>();
  for (const c of conflicts) {
    const group = byManager.get(c.managerKey);
    if (group) group.push(c);
    else byManager.set(c.managerKey, [c]);
  }
  const lines: string[] = [];
  for (const key of [...byManager.keys()].sort()) {
    const group = byManager.get(key)!;
    lines.push(`conflicts with ${group[0].manager}:`);
    for (const c of group) lines.push(`- ${c.field}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}
