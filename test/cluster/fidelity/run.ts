/**
 * Replays a corpus against both servers (each server's cases in order, the two servers side by
 * side) and compares every case's normalised outcome field by field.
 */
import type { Case } from './case.js';
import { applyView, differences, type Difference, type Normalised } from './compare.js';
import type { Target } from './http.js';
import { normaliseOutcome } from './normalise.js';
import { Replayer, type Outcome } from './replay.js';

export interface CaseResult {
  c: Case;
  real: Normalised;
  ours: Normalised;
  diffs: Difference[];
}

async function replayAll(cases: Case[], target: Target): Promise<Outcome[]> {
  const replayer = new Replayer(target);
  try {
    const out: Outcome[] = [];
    for (const c of cases) out.push(await replayer.run(c));
    return out;
  } finally {
    replayer.close();
  }
}

export async function replayCorpus(cases: Case[], real: Target, ours: Target): Promise<CaseResult[]> {
  const [realOutcomes, ourOutcomes] = await Promise.all([replayAll(cases, real), replayAll(cases, ours)]);
  return cases.map((c, i) => {
    const r = applyView(normaliseOutcome(realOutcomes[i]), c.view);
    const o = applyView(normaliseOutcome(ourOutcomes[i]), c.view);
    return { c, real: r, ours: o, diffs: differences(r, o) };
  });
}
