/**
 * One side of the controller differential: a fresh control plane, the scenarios' objects, one
 * set of PV controllers (kube-controller-manager's or ours, never both), and the state each
 * scenario converged to.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';
import { binaryPath } from '../../../tools/cluster/binaries.js';
import type { ControlPlane } from '../../../tools/cluster/control-plane.js';
import { startTestControlPlane } from '../../helpers/control-plane.js';
import { TargetClient } from '../fidelity/http.js';
import type { Scenario } from './scenarios.js';
import { snapshot, unusedTransitionTimes, type ScenarioState } from './snapshot.js';

/** Starts the side's controllers on the plane; resolves to their stop. */
export type StartControllers = (plane: ControlPlane, hostPathRoot: string) => Promise<() => Promise<void>>;

/** How long a state must hold unchanged to count as converged, and the most to wait for it. */
const POLL_MS = 1000;
const STABLE_POLLS = 6;
const MAX_WAIT_MS = 120_000;

function fill(value: unknown, root: string, scenario: Scenario): unknown {
  return JSON.parse(JSON.stringify(value).split('{root}').join(root).split('{class}').join(scenario.id)) as unknown;
}

async function send(client: TargetClient, method: 'POST' | 'DELETE' | 'PATCH', path: string, body?: unknown): Promise<void> {
  const answer = await client.send({ method, path, body, contentType: method === 'PATCH' ? 'application/merge-patch+json' : undefined });
  if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
}

/** Polls until every scenario's state stayed the same for STABLE_POLLS polls (or MAX_WAIT_MS passed). */
async function converge(client: TargetClient, scenarios: Scenario[], root: string): Promise<Map<string, ScenarioState>> {
  let last = await snapshot(client, scenarios, root);
  let stable = 0;
  const deadline = Date.now() + MAX_WAIT_MS;
  while (stable < STABLE_POLLS && Date.now() < deadline) {
    await sleep(POLL_MS);
    const next = await snapshot(client, scenarios, root);
    stable = isDeepStrictEqual(next, last) ? stable + 1 : 0;
    last = next;
  }
  return last;
}

type ScenarioObject = Scenario['objects'][number];
const isClaim = (o: ScenarioObject): boolean => o.path.includes('/persistentvolumeclaims');

async function createObjects(client: TargetClient, sc: Scenario, root: string, which: (o: ScenarioObject) => boolean): Promise<void> {
  for (const o of sc.objects.filter(which)) {
    const path = isClaim(o) ? `/api/v1/namespaces/${sc.id}/persistentvolumeclaims` : o.path;
    const filled = fill(o.body, root, sc) as { spec?: { hostPath?: { path?: string } } };
    if (filled.spec?.hostPath?.path) await mkdir(filled.spec.hostPath.path, { recursive: true });
    await send(client, 'POST', path, filled);
  }
}

async function volumesSeen(client: TargetClient): Promise<void> {
  const deadline = Date.now() + MAX_WAIT_MS;
  while (Date.now() < deadline) {
    const answer = await client.send({ method: 'GET', path: '/api/v1/persistentvolumes' });
    const items = ((answer.body as { items?: { status?: { phase?: string } }[] }).items ?? []);
    if (items.every((pv) => pv.status?.phase !== undefined && pv.status.phase !== 'Pending')) return;
    await sleep(POLL_MS);
  }
}

export interface SideResult {
  /** What each scenario converged to in the end. */
  final: Map<string, ScenarioState>;
  /** What the initial objects converged to, before the scenarios' `then` steps. */
  beforeSteps: Map<string, ScenarioState>;
  /** Each claim's Unused lastTransitionTime ("<scenario>/<claim>"), before the steps and in the end. */
  unusedTimes: { beforeSteps: Map<string, string>; final: Map<string, string> };
}

export async function runSide(name: string, scenarios: Scenario[], start: StartControllers): Promise<SideResult> {
  const plane = await startTestControlPlane();
  // Under /tmp: kube-controller-manager's host-path deleter refuses any other path.
  const root = await mkdtemp(join('/tmp', `pvc-cd-${name}-`));
  const client = new TargetClient({ name: 'real', url: plane.url, token: plane.adminToken, caPem: plane.caPem, kubeconfigPath: plane.kubeconfigPath, kubectl: binaryPath('kubectl') });
  let stopControllers: (() => Promise<void>) | undefined;
  try {
    for (const sc of scenarios) {
      await send(client, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: sc.id } });
      await createObjects(client, sc, root, (o) => !isClaim(o));
    }
    stopControllers = await start(plane, root);
    // Claims come once the controllers have seen every volume (none Pending any more): otherwise
    // which of a claim's first sync and a volume's decides the outcome is a race on either side.
    await volumesSeen(client);
    for (const sc of scenarios) await createObjects(client, sc, root, isClaim);
    const beforeSteps = await converge(client, scenarios, root);
    const timesBefore = await unusedTransitionTimes(client, scenarios);
    for (const sc of scenarios) for (const step of sc.then ?? []) await send(client, step.method, step.path, step.body);
    const final = await converge(client, scenarios, root);
    return { final, beforeSteps, unusedTimes: { beforeSteps: timesBefore, final: await unusedTransitionTimes(client, scenarios) } };
  } finally {
    await stopControllers?.();
    client.close();
    await plane.stop();
    await plane.removeDir();
    await rm(root, { recursive: true, force: true });
  }
}
