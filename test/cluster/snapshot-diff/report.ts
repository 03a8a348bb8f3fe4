/**
 * The snapshot differential's side-by-side table: for each scenario, each object's summary on
 * the upstream side and on ours (or why ours did not run), then the differences and the known
 * ones with their reasons. Printed, and written to docs/snapshot-differential.md.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO_ROOT } from '../../../tools/cluster/binaries.js';
import { summaryRows, type ViewDifference } from './compare.js';
import { explainedBy, KNOWN_SNAPSHOT_DIFFERENCES } from './known.js';
import type { ScenarioView, SnapshotScenario } from './scenarios.js';

const DOC = join(REPO_ROOT, 'docs', 'snapshot-differential.md');

export interface ScenarioResult {
  sc: SnapshotScenario;
  upstream: ScenarioView[] | undefined;
  ours: ScenarioView[] | undefined;
  diffs: ViewDifference[];
}

const cell = (s: string | undefined): string => (s ?? 'absent').replace(/\|/g, '\\|').replace(/\n/g, ' ');
const show = (v: unknown): string => (v === undefined ? 'absent' : JSON.stringify(v));

/** The table of the view after stage `index` (0-based). */
function stageTable(r: ScenarioResult, index: number, oursMissing: string | undefined): string[] {
  const up = summaryRows(r.upstream?.[index]);
  const ours = summaryRows(r.ours?.[index]);
  const keys = [...new Set([...up.keys(), ...ours.keys()])];
  return [
    '| object | upstream | pv-controller |',
    '| --- | --- | --- |',
    ...keys.map((k) => `| ${cell(k)} | ${cell(up.get(k))} | ${oursMissing ? 'not run' : cell(ours.get(k))} |`),
    '',
  ];
}

/** The final view; for a scenario that holds the driver's answers, also the view while they were held. */
function scenarioTable(r: ScenarioResult, oursMissing: string | undefined): string[] {
  const stages = r.sc.stages.length;
  const held = r.sc.holdCreateSnapshot;
  return [
    `### \`${r.sc.id}\`: ${r.sc.title}`,
    '',
    ...(held !== undefined ? [`While CreateSnapshot's answer is held (after stage ${held[1] + 1}):`, '', ...stageTable(r, held[1], oursMissing), 'In the end:', ''] : []),
    ...stageTable(r, stages - 1, oursMissing),
  ];
}

export function snapshotReport(results: ScenarioResult[], oursMissing: string | undefined, command: string): string {
  const alike = results.filter((r) => r.diffs.length === 0).length;
  const lines = [
    '# Snapshot differential',
    '',
    `Written by \`test/cluster/snapshot-differential.test.ts\` (\`${command}\`).`,
    "Each scenario's stages run on a fresh real control plane with Kubernetes' CSI mock driver: once with external-snapshotter's",
    'snapshot-controller and csi-snapshotter, external-provisioner and kube-controller-manager (upstream), once with pv-controller.',
    'Objects are compared field by field after normalisation (uids, times and driver ids as placeholders; events as a set of',
    'object, type, reason and message); "driver snapshots" is what the mock lists (ListSnapshots) of the scenario\'s volumes.',
    '',
    oursMissing ? `pv-controller's side did not run: ${oursMissing}.` : `${alike} of ${results.length} scenarios converge alike.`,
    '',
  ];
  for (const r of results) lines.push(...scenarioTable(r, oursMissing));
  const differing = results.filter((r) => r.diffs.length > 0);
  if (!oursMissing && differing.length > 0) lines.push('## Differences', '');
  for (const r of oursMissing ? [] : differing) {
    const shown = r.diffs.slice(0, 8).map((d) => `stage ${d.stage} ${d.path}: upstream ${show(d.upstream)} / ours ${show(d.ours)}`).join('; ');
    const more = r.diffs.length > 8 ? ` (+${r.diffs.length - 8} more)` : '';
    const why = [...new Set(r.diffs.map((d) => explainedBy(r.sc.id, d)?.name ?? '**not explained**'))].join(', ');
    lines.push(`- \`${r.sc.id}\`: ${shown}${more}. Known: ${why}`);
  }
  lines.push('', '## Known differences', '', ...(KNOWN_SNAPSHOT_DIFFERENCES.length === 0 ? ['None listed yet.'] : [...new Map(KNOWN_SNAPSHOT_DIFFERENCES.map((k) => [k.name, k] as const)).values()].map((k) => `- **${k.name}**: ${k.reason}`)), '');
  return lines.join('\n');
}

export async function writeSnapshotReport(text: string): Promise<void> {
  await writeFile(DOC, text);
}
