/**
 * The "Controller differential" section of docs/fidelity.md, between markers so the fidelity
 * test, which writes the rest of the file, keeps it (see `withControllerSection`).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO_ROOT } from '../../../tools/cluster/binaries.js';
import type { Scenario } from './scenarios.js';
import { explainedBy, KNOWN_CONTROLLER_DIFFERENCES } from './known.js';
import type { StateDifference } from './snapshot.js';

const START = '<!-- controller-differential:start -->';
const END = '<!-- controller-differential:end -->';
const DOC = join(REPO_ROOT, 'docs', 'fidelity.md');

const show = (v: unknown): string => (v === undefined ? 'absent' : JSON.stringify(v));

function section(results: { sc: Scenario; diffs: StateDifference[] }[]): string {
  const alike = results.filter((r) => r.diffs.length === 0).length;
  const lines = [
    START,
    '## Controller differential',
    '',
    'Written by `test/cluster/controller-differential.test.ts` (`npm run build && node dist/tools/cluster/test-run.js controller-differential`).',
    "Each scenario's objects are created on a fresh control plane, once with kube-controller-manager's PV controllers (with `--enable-hostpath-provisioner`)",
    'and once with ours (never both); the volumes, claims and events each converged to are compared field by field after normalisation',
    '(uids, resourceVersions and times out; provisioned names and paths as placeholders; events as a set of object, type, reason and message).',
    '',
    `${alike} of ${results.length} scenarios converge alike.`,
    '',
    '| scenario | converges alike |',
    '| --- | --- |',
    ...results.map((r) => `| \`${r.sc.id}\`: ${r.sc.title} | ${r.diffs.length === 0 ? 'yes' : 'no'} |`),
  ];
  const differing = results.filter((r) => r.diffs.length > 0);
  if (differing.length > 0) lines.push('', '### Differences', '');
  for (const r of differing) {
    const shown = r.diffs.slice(0, 6).map((d) => `${d.path}: kube-controller-manager ${show(d.kcm)} / ours ${show(d.ours)}`).join('; ');
    const more = r.diffs.length > 6 ? ` (+${r.diffs.length - 6} more)` : '';
    const why = [...new Set(r.diffs.map((d) => explainedBy(r.sc.id, d)?.name ?? '**not explained**'))].join(', ');
    lines.push(`- \`${r.sc.id}\`: ${shown}${more}. Known: ${why}`);
  }
  lines.push('', '### Known differences', '', ...KNOWN_CONTROLLER_DIFFERENCES.map((k) => `- **${k.name}**: ${k.reason}`));
  lines.push(END);
  return lines.join('\n');
}

/** `text` with the controller section of `previous` (if any) appended in place of its own. */
export function withControllerSection(text: string, previous: string): string {
  const start = previous.indexOf(START);
  const end = previous.indexOf(END);
  const base = text.includes(START) ? text.slice(0, text.indexOf(START)).trimEnd() : text.trimEnd();
  if (start < 0 || end < start) return `${base}\n`;
  return `${base}\n\n${previous.slice(start, end + END.length)}\n`;
}

export async function writeControllerSection(results: { sc: Scenario; diffs: StateDifference[] }[]): Promise<void> {
  const previous = await readFile(DOC, 'utf8').catch(() => '');
  const next = `${section(results)}\n`;
  await writeFile(DOC, withControllerSection(previous, next));
}
