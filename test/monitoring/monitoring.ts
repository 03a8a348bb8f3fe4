/** Where the chart keeps its monitoring files, and what they contain. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT } from '../../tools/cluster/binaries.js';

export const CHART_FILES = join(REPO_ROOT, 'charts', 'pv-controller', 'files');
export const PROMETHEUS_RULES = join(CHART_FILES, 'prometheus-rules.yaml');
export const GRAFANA_DASHBOARD = join(CHART_FILES, 'grafana-dashboard.json');

interface RuleFile {
  groups: Array<{ name: string; rules: Array<{ alert?: string; record?: string; expr: string; annotations?: Record<string, string> }> }>;
}

async function rules(): Promise<RuleFile['groups'][number]['rules']> {
  const file = parse(await readFile(PROMETHEUS_RULES, 'utf8')) as RuleFile;
  return file.groups.flatMap((g) => g.rules);
}

export async function alertNames(): Promise<string[]> {
  return (await rules()).flatMap((r) => (r.alert ? [r.alert] : []));
}

/** Each alert's name and its runbook_url annotation (undefined when it has none). */
export async function alertRunbooks(): Promise<Array<{ alert: string; runbookUrl: string | undefined }>> {
  return (await rules()).flatMap((r) => (r.alert ? [{ alert: r.alert, runbookUrl: r.annotations?.runbook_url }] : []));
}

export async function recordedNames(): Promise<string[]> {
  return (await rules()).flatMap((r) => (r.record ? [r.record] : []));
}

interface DashboardPanel {
  title: string;
  targets?: Array<{ expr: string }>;
}

/** Every query of the dashboard, with the Grafana variables it uses put to concrete values. */
export async function dashboardQueries(values: Record<string, string>): Promise<Array<{ panel: string; expr: string }>> {
  const dashboard = JSON.parse(await readFile(GRAFANA_DASHBOARD, 'utf8')) as { panels: DashboardPanel[] };
  return dashboard.panels.flatMap((p) =>
    (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr.replace(/\$(\w+)/g, (whole, name: string) => values[name] ?? whole) })),
  );
}

/** The anchors GitHub (and most Markdown renderers) give the headings of a Markdown file. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const m of markdown.matchAll(/^#{1,6} +(.+?) *$/gm)) {
    anchors.add(m[1].toLowerCase().replace(/[^\p{L}\p{N}\- _]/gu, '').replace(/ /g, '-'));
  }
  return anchors;
}
