/**
 * One side of the snapshot differential: a fresh snapshot world (bench/csi/snapshot-world.ts),
 * a namespace per scenario, the scenarios' stages sent in step (every scenario's stage N, then
 * the world converges, then stage N+1), and the state each scenario converged to. A scenario that
 * holds the driver's CreateSnapshot answers runs after the others, alone.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';
import { startSnapshotWorld, type SnapshotSide, type SnapshotWorld } from '../../../bench/csi/snapshot-world.js';
import { listDriverSnapshots } from '../../../tools/chaos/csi.js';
import { auditDir } from '../../helpers/control-plane.js';
import { Names, recordScenarios, type WorldState } from './record.js';
import type { ScenarioView, SnapshotScenario, Step } from './scenarios.js';

type Json = Record<string, unknown>;

/** How long a state must hold unchanged to count as converged, and the most to wait for it. */
const POLL_MS = 1000;
const STABLE_POLLS = 6;
const MAX_WAIT_MS = 150_000;
const HOLD_WAIT_MS = 60_000;
const RETRIES_429 = 30;

class SideRun {
  private readonly names = new Names();
  readonly state: WorldState;

  constructor(
    private readonly world: SnapshotWorld,
    private readonly log: (line: string) => void,
  ) {
    this.state = { list: (p) => this.list(p), driverSnapshots: () => listDriverSnapshots(world.csi.driver.socket) };
  }

  /** One request; a 429 (kube-apiserver re-initialising a CRD's storage just after it was installed) is retried. */
  private async request(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
    let answer = await this.world.csi.client.raw(method, path, body === undefined ? undefined : JSON.stringify(body));
    for (let attempt = 0; answer.status === 429 && attempt < RETRIES_429; attempt++) {
      await sleep(POLL_MS);
      answer = await this.world.csi.client.raw(method, path, body === undefined ? undefined : JSON.stringify(body));
    }
    let parsed: Json = {};
    try {
      parsed = JSON.parse(answer.body) as Json;
    } catch {
      // Not JSON: the status says enough.
    }
    return { status: answer.status, body: parsed };
  }

  private async must(method: string, path: string, body?: unknown): Promise<Json> {
    const a = await this.request(method, path, body);
    if (a.status >= 300) throw new Error(`${method} ${path}: ${a.status} ${JSON.stringify(a.body).slice(0, 300)}`);
    return a.body;
  }

  async list(path: string): Promise<Json[]> {
    return ((await this.must('GET', path)).items as Json[] | undefined) ?? [];
  }

  private async get(path: string): Promise<Json | undefined> {
    const a = await this.request('GET', path);
    return a.status === 404 ? undefined : a.body;
  }

  async send(step: Step): Promise<void> {
    switch (step.kind) {
      case 'create':
        await this.must('POST', step.path, step.body);
        return;
      case 'delete':
        await this.must('DELETE', step.path);
        return;
      case 'create-from':
        await this.must('POST', step.path, await step.body((p) => this.list(p), (p) => this.get(p)));
        return;
      case 'annotate': {
        const path = await step.path((p) => this.get(p));
        const current = await this.must('GET', path);
        const metadata = current.metadata as Json;
        metadata.annotations = { ...((metadata.annotations as Json | undefined) ?? {}), ...step.annotations };
        await this.must('PUT', path, current);
      }
    }
  }

  /** Sends a step; one that fails is recorded in the scenario's view (a side may refuse what the other takes). */
  private async sendRecorded(id: string, stage: number, step: Step): Promise<void> {
    try {
      await this.send(step);
    } catch (err) {
      const text = `stage ${stage + 1} ${step.kind}: ${err instanceof Error ? err.message : String(err)}`;
      this.log(`${this.world.side}: ${id}: ${text}`);
      this.names.failedSteps.set(id, [...(this.names.failedSteps.get(id) ?? []), text]);
    }
  }

  /** Waits for the driver's held CreateSnapshot answer; none coming is recorded for the holding scenario (that side never cut it). */
  private async awaitHeld(batch: SnapshotScenario[], stage: number): Promise<void> {
    try {
      await this.world.csi.proxy.waitForHeld('CreateSnapshot', 1, HOLD_WAIT_MS, 'after');
    } catch (err) {
      const id = batch.find((sc) => sc.holdCreateSnapshot?.[0] === stage)?.id ?? '';
      const text = `stage ${stage + 1}: no CreateSnapshot reached the driver to hold (${err instanceof Error ? err.message.replace(/ after \d+ ms.*$/, '') : String(err)})`;
      this.names.failedSteps.set(id, [...(this.names.failedSteps.get(id) ?? []), text]);
    }
  }

  /** Polls until the batch's state stayed the same for STABLE_POLLS polls (or MAX_WAIT_MS passed). */
  async converge(batch: SnapshotScenario[]): Promise<Map<string, ScenarioView>> {
    let last = await recordScenarios(this.state, batch, this.names);
    let stable = 0;
    const deadline = Date.now() + MAX_WAIT_MS;
    while (stable < STABLE_POLLS && Date.now() < deadline) {
      await sleep(POLL_MS);
      this.world.checkAlive();
      const next = await recordScenarios(this.state, batch, this.names);
      stable = isDeepStrictEqual(next, last) ? stable + 1 : 0;
      last = next;
    }
    if (stable < STABLE_POLLS) this.log(`${batch.map((s) => s.id).join(', ')}: still changing after ${MAX_WAIT_MS / 1000} s; recorded as last seen`);
    return last;
  }

  /** Each scenario's view after each of its stages (its last one: when the whole batch converged). */
  async runBatch(batch: SnapshotScenario[]): Promise<Map<string, ScenarioView[]>> {
    const stages = Math.max(...batch.map((sc) => sc.stages.length));
    const out = new Map<string, ScenarioView[]>(batch.map((sc) => [sc.id, []]));
    let last = new Map<string, ScenarioView>();
    for (let i = 0; i < stages; i++) {
      const holdStarts = batch.some((sc) => sc.holdCreateSnapshot?.[0] === i);
      const holdEnds = batch.some((sc) => sc.holdCreateSnapshot?.[1] === i);
      const proxy = this.world.csi.proxy;
      if (holdStarts) proxy.setRule({ method: 'CreateSnapshot', fault: { kind: 'hang', when: 'after' } });
      for (const sc of batch) for (const step of sc.stages[i] ?? []) await this.sendRecorded(sc.id, i, step);
      if (holdStarts) await this.awaitHeld(batch, i);
      last = await this.converge(batch);
      for (const sc of batch) if (i < sc.stages.length - 1) out.get(sc.id)?.push(last.get(sc.id)!);
      if (holdEnds) {
        proxy.clearRule('CreateSnapshot');
        proxy.release('CreateSnapshot');
      }
      this.log(`${this.world.side}: stage ${i + 1}/${stages} of ${batch.length} scenario(s) converged`);
    }
    for (const sc of batch) out.get(sc.id)?.push(last.get(sc.id)!);
    return out;
  }
}

/** Each scenario's view after each of its stages. */
export async function runSnapshotSide(side: SnapshotSide, scenarios: SnapshotScenario[], log: (line: string) => void): Promise<Map<string, ScenarioView[]>> {
  const dir = await mkdtemp(join(auditDir() ?? tmpdir(), `snapdiff-${side}-`));
  const world = await startSnapshotWorld({ side, dir, etcdUrl: process.env.PV_TEST_ETCD_URL });
  try {
    const run = new SideRun(world, log);
    for (const sc of scenarios) {
      const answer = await world.csi.client.raw('POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: sc.id } }));
      if (answer.status >= 300) throw new Error(`namespace ${sc.id}: ${answer.status} ${answer.body.slice(0, 200)}`);
    }
    const out = new Map<string, ScenarioView[]>();
    const together = scenarios.filter((sc) => sc.holdCreateSnapshot === undefined);
    const alone = scenarios.filter((sc) => sc.holdCreateSnapshot !== undefined);
    for (const batch of [together, ...alone.map((sc) => [sc])]) {
      if (batch.length === 0) continue;
      for (const [id, views] of await run.runBatch(batch)) out.set(id, views);
    }
    return out;
  } finally {
    await world.stop();
    if (!auditDir()) await rm(dir, { recursive: true, force: true });
  }
}
