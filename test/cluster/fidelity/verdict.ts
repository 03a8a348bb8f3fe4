/**
 * Which mismatches fail the test. Known differences come in two kinds: a case (by id) whose
 * answer differs for a stated reason, and a field-wide gap (a path pattern such as managedFields)
 * that shows in many cases for one reason. A mismatch that neither explains is a regression; a
 * listed case that now matches, apart from field-wide gaps, is reported so the list can shrink.
 */
import type { Difference } from './compare.js';
import type { CaseResult } from './run.js';

export interface FieldGap {
  /** A short name for reports ("managedFields"). */
  name: string;
  /** Matched against a difference's path (`answer.body.metadata.managedFields`). */
  path: RegExp;
  /** Only in cases of this resource (a case's `resource`). */
  resource?: string;
  /** Only where kube-apiserver answered this value (null for fields it writes as null). */
  realValue?: null | string;
  reason: string;
}

/** Whether a field-wide gap explains a difference of a case about `resource`. */
export function explains(gap: FieldGap, resource: string | undefined, d: Difference): boolean {
  if (gap.resource !== undefined && gap.resource !== resource) return false;
  if (gap.realValue !== undefined && d.real !== gap.realValue) return false;
  return gap.path.test(d.path);
}

export interface KnownDifferences {
  /** Case id → why our answer differs. */
  cases: Record<string, string>;
  fields: FieldGap[];
}

export interface Verdict {
  regressions: CaseResult[];
  /** Listed cases whose only differences left are field-wide gaps (or none). */
  nowMatching: string[];
  /** Field-wide gaps no case shows. */
  fieldGapsGone: string[];
  /** Listed ids the corpus does not have. */
  unknownIds: string[];
}

/** The differences of a case field-wide gaps do not explain. */
export function residual(r: CaseResult, fields: FieldGap[]): Difference[] {
  return r.diffs.filter((d) => !fields.some((f) => explains(f, r.c.resource, d)));
}

export function judge(results: CaseResult[], known: KnownDifferences): Verdict {
  const ids = new Set(results.map((r) => r.c.id));
  const regressions: CaseResult[] = [];
  const nowMatching: string[] = [];
  for (const r of results) {
    const left = residual(r, known.fields);
    const listed = r.c.id in known.cases;
    if (left.length > 0 && !listed) regressions.push(r);
    if (left.length === 0 && listed) nowMatching.push(r.c.id);
  }
  const fieldGapsGone = known.fields
    .filter((f) => !results.some((r) => r.diffs.some((d) => explains(f, r.c.resource, d))))
    .map((f) => f.reason);
  const unknownIds = Object.keys(known.cases).filter((id) => !ids.has(id));
  return { regressions, nowMatching, fieldGapsGone, unknownIds };
}
