/**
 * The match table (by area and by resource) for the console, and docs/fidelity.md: the tables,
 * the field-wide gaps, then every mismatching case with its one-line difference.
 */
import { explains, residual, type KnownDifferences } from './verdict.js';
import { summarise } from './compare.js';
import type { CaseResult } from './run.js';

interface Row {
  group: string;
  cases: number;
  matching: number;
  /** Matching once the field-wide gaps are forgiven. */
  apartFromGaps: number;
}

function rows(results: CaseResult[], key: (r: CaseResult) => string | undefined, known: KnownDifferences): Row[] {
  const byGroup = new Map<string, Row>();
  for (const r of results) {
    const group = key(r);
    if (group === undefined) continue;
    const row = byGroup.get(group) ?? { group, cases: 0, matching: 0, apartFromGaps: 0 };
    row.cases++;
    if (r.diffs.length === 0) row.matching++;
    if (residual(r, known.fields).length === 0) row.apartFromGaps++;
    byGroup.set(group, row);
  }
  const out = [...byGroup.values()];
  const total = out.reduce((t, r) => ({ ...t, cases: t.cases + r.cases, matching: t.matching + r.matching, apartFromGaps: t.apartFromGaps + r.apartFromGaps }), {
    group: 'total',
    cases: 0,
    matching: 0,
    apartFromGaps: 0,
  });
  return [...out, total];
}

const pct = (n: number, of: number): string => `${of === 0 ? 0 : Math.round((100 * n) / of)}%`;

function markdownTable(title: string, data: Row[]): string[] {
  return [
    `| ${title} | cases | matching | % | matching apart from field-wide gaps |`,
    '| --- | ---: | ---: | ---: | ---: |',
    ...data.map((r) => `| ${r.group === 'total' ? '**total**' : r.group} | ${r.cases} | ${r.matching} | ${pct(r.matching, r.cases)} | ${r.apartFromGaps} |`),
  ];
}

export function consoleTable(results: CaseResult[], known: KnownDifferences): string {
  const data = rows(results, (r) => r.c.area, known);
  const width = Math.max(...data.map((r) => r.group.length), 4);
  const line = (a: string, b: string, c: string, d: string, e: string): string =>
    `${a.padEnd(width)}  ${b.padStart(5)}  ${c.padStart(8)}  ${d.padStart(4)}  ${e.padStart(12)}`;
  return [line('area', 'cases', 'matching', '%', 'apart-gaps'), ...data.map((r) => line(r.group, String(r.cases), String(r.matching), pct(r.matching, r.cases), String(r.apartFromGaps)))].join('\n');
}

/** The case, what differs apart from field-wide gaps, the gaps it shows, and whether it is listed. */
function mismatchLine(r: CaseResult, known: KnownDifferences): string {
  const left = residual(r, known.fields);
  const gaps = known.fields.filter((f) => r.diffs.some((d) => explains(f, r.c.resource, d))).map((f) => f.name);
  const reason = known.cases[r.c.id];
  if (left.length === 0) return `\`${r.c.id}\` (${r.c.title}): only field-wide gaps (${gaps.join(', ')})${reason ? `; listed: ${reason}` : ''}`;
  const also = gaps.length > 0 ? `; also field-wide gaps (${gaps.join(', ')})` : '';
  const verdict = reason ? `known: ${reason}` : '**not on the list of known differences**';
  return `\`${r.c.id}\` (${r.c.title}): ${summarise(left, r.real, r.ours).replace(/\n/g, ' ')}${also}. ${verdict}`;
}

function mismatchLines(results: CaseResult[], known: KnownDifferences): string[] {
  const out: string[] = [];
  let area = '';
  for (const r of results.filter((x) => x.diffs.length > 0)) {
    if (r.c.area !== area) {
      area = r.c.area;
      out.push('', `### ${area}`, '');
    }
    out.push(`- ${mismatchLine(r, known)}`);
  }
  return out;
}

export function markdownReport(results: CaseResult[], known: KnownDifferences, serverVersion: string): string {
  const gaps = known.fields.map((f) => {
    const n = results.filter((r) => r.diffs.some((d) => explains(f, r.c.resource, d))).length;
    return `- **${f.name}** (${n} cases; \`${f.path.source}\`${f.resource ? ` in ${f.resource} cases` : ''}): ${f.reason}`;
  });
  return [
    '# Differential fidelity: the embedded API server beside kube-apiserver',
    '',
    `Written by \`test/cluster/fidelity.test.ts\` (\`npm run test:cluster\`; alone: \`npm run build && node dist/tools/cluster/test-run.js fidelity\`).`,
    `${results.length} cases (test/cluster/fidelity/corpus-*.ts) are replayed against a fresh embedded server (memory storage) and a fresh ${serverVersion}, with the same kubectl for both.`,
    'Answers are normalised (uids, resourceVersions, timestamps, continue tokens, generated names, ages, server address) and compared field by field:',
    'status code, content type, warnings, Status reason, message and causes, every field of returned objects (so defaulting shows), table columns and cells,',
    'watch event sequences, and kubectl exit codes and output lines. A case matches when nothing differs. Known differences are listed in',
    '`test/cluster/fidelity/known-differences.ts`; the test fails on a mismatch that is not listed there.',
    '',
    '## Match by area',
    '',
    ...markdownTable('area', rows(results, (r) => r.c.area, known)),
    '',
    '## Match by resource',
    '',
    ...markdownTable('resource', rows(results, (r) => r.c.resource, known)),
    '',
    '## Field-wide gaps',
    '',
    ...gaps,
    '',
    '## Mismatching cases',
    '',
    'Each line: the case, what kube-apiserver answered (real) against the embedded server (ours) apart from the field-wide gaps,',
    'the field-wide gaps it shows, and why it is a known difference.',
    ...mismatchLines(results, known),
    '',
  ].join('\n');
}
