/**
 * The disruptor's CSI actions, all through the CSI fault proxy between the controllers and the
 * driver (tools/csi/csi-proxy.ts):
 * - a lost CreateVolume answer: the driver made the volume, its answer is held and released
 *   later (often after the controller's --csi-timeout gave up on it);
 * - UNAVAILABLE or DEADLINE_EXCEEDED answered for CreateVolume or DeleteVolume (never forwarded);
 * - a slow CreateVolume answer (the driver did it at once; the answer comes 1–6 s later);
 * - the shape of external-provisioner#486: every CreateVolume answer held, a claim of its own
 *   created and, once the driver holds a volume for it, deleted; then every controller SIGKILLed
 *   and restarted, and the held answers released to callers that are gone.
 * Faults are counted when they fire (a rule lifted before its count ran out fired fewer times).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { status } from '@grpc/grpc-js';
import { paths } from '../../src/kube-client/paths.js';
import type { CsiFault } from '../csi/faults.js';
import type { ChaosCsi } from './csi.js';
import type { RecordingClient } from './history.js';
import type { Prng } from './prng.js';
import { claimPath, CSI_CLASS, NAMESPACE, newClaim } from './world.js';

type CsiVolumeMethod = 'CreateVolume' | 'DeleteVolume';

/** What the actions need of the run's CSI part: its proxy, and the driver's volumes. */
export type CsiTarget = Pick<ChaosCsi, 'proxy' | 'volumes'>;

interface ActiveRule {
  label: string;
  times: number;
}

export class CsiDisruptions {
  /** Faults fired, by kind (`CreateVolume lostAnswer`, `DeleteVolume UNAVAILABLE`, `claimDeletedMidCreate`, ...). */
  private readonly fired = new Map<string, number>();
  private readonly active = new Map<CsiVolumeMethod, ActiveRule>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private seq = 0;

  constructor(
    private readonly csi: CsiTarget,
    private readonly client: Pick<RecordingClient, 'send'>,
    /** SIGKILLs every running controller and starts as many again (in the same mode). */
    private readonly crashControllers: () => Promise<void>,
    private readonly log: (line: string) => void,
  ) {}

  /** One seeded CSI action. */
  async act(r: Prng): Promise<void> {
    const action = r.weighted({ lostCreateAnswer: 3, failCall: 3, slowCreateAnswer: 1.5, claimDeletedMidCreate: 2.5 });
    switch (action) {
      case 'lostCreateAnswer':
        return this.loseCreateAnswer(r.int(1000, 15_000));
      case 'failCall':
        return this.failCalls(r.pick(['CreateVolume', 'DeleteVolume'] as const), r.pick([status.UNAVAILABLE, status.DEADLINE_EXCEEDED] as const), r.int(1, 4));
      case 'slowCreateAnswer':
        return this.slowCreateAnswers(r.int(1000, 6000), r.int(2, 6));
      case 'claimDeletedMidCreate':
        return this.claimDeletedMidCreate();
    }
  }

  /** The next CreateVolume is made by the driver, its answer held for `releaseAfterMs`. */
  loseCreateAnswer(releaseAfterMs: number): void {
    this.setRule('CreateVolume', 'lostAnswer', { kind: 'hang', when: 'after' }, 1);
    this.later(releaseAfterMs, () => this.csi.proxy.release('CreateVolume'));
  }

  /** The next `times` calls of `method` are answered `code` by the proxy, never forwarded. */
  failCalls(method: CsiVolumeMethod, code: status, times: number): void {
    this.setRule(method, status[code], { kind: 'fail', code }, times);
  }

  /** The next `times` CreateVolume answers come `ms` after the driver gave them. */
  slowCreateAnswers(ms: number, times: number): void {
    this.setRule('CreateVolume', 'slowAnswer', { kind: 'delay', when: 'after', ms }, times);
  }

  /** Faults fired so far, by kind. */
  faultsFired(): Record<string, number> {
    const out = Object.fromEntries(this.fired);
    for (const [method, rule] of this.active) {
      const key = `${method} ${rule.label}`;
      const n = rule.times - this.remaining(method);
      if (n > 0) out[key] = (out[key] ?? 0) + n;
    }
    return out;
  }

  /** Every rule off, every held call released, no release pending: what settling starts with. */
  calm(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const method of [...this.active.keys()]) this.account(method);
    this.csi.proxy.clearRule();
    this.csi.proxy.release();
  }

  private remaining(method: CsiVolumeMethod): number {
    return this.csi.proxy.activeRules().find((r) => r.method === method)?.times ?? 0;
  }

  /** Counts what `method`'s current rule fired and forgets it. */
  private account(method: CsiVolumeMethod): void {
    const rule = this.active.get(method);
    if (!rule) return;
    this.active.delete(method);
    const n = rule.times - this.remaining(method);
    const key = `${method} ${rule.label}`;
    if (n > 0) this.fired.set(key, (this.fired.get(key) ?? 0) + n);
  }

  private setRule(method: CsiVolumeMethod, label: string, fault: CsiFault, times: number): void {
    this.account(method);
    this.csi.proxy.setRule({ method, fault, times });
    this.active.set(method, { label, times });
  }

  private later(ms: number, fn: () => void): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
  }

  /**
   * external-provisioner#486: the driver made the volume, the provisioner never heard, the claim
   * is deleted and the provisioner restarted. Ours must end with the volume deleted (the claim's
   * provisioning finalizer is the intent a restart finds).
   */
  async claimDeletedMidCreate(): Promise<void> {
    const name = `csi-486-${++this.seq}`;
    this.account('CreateVolume');
    // Answers held already were counted when their rule fired.
    const heldBefore = this.csi.proxy.held('CreateVolume');
    this.csi.proxy.setRule({ method: 'CreateVolume', fault: { kind: 'hang', when: 'after' } });
    try {
      const made = await this.client.send<{ metadata: { uid?: string } }>('claim', 'POST', paths.claims(NAMESPACE), newClaim(name, CSI_CLASS), { object: claimPath(name) });
      const uid = made.body?.metadata.uid;
      const held = uid !== undefined && (await this.driverHolds(uid, 20_000));
      await this.client.send('claim', 'DELETE', claimPath(name));
      await this.crashControllers();
      this.fired.set('claimDeletedMidCreate', (this.fired.get('claimDeletedMidCreate') ?? 0) + 1);
      this.log(`CSI: claim ${name} deleted ${held ? 'after the driver made its volume, its answer held' : '(the driver had not made its volume in 20 s)'}; controllers SIGKILLed`);
    } finally {
      this.csi.proxy.clearRule('CreateVolume');
      const lost = this.csi.proxy.release('CreateVolume') - heldBefore;
      if (lost > 0) this.fired.set('CreateVolume lostAnswer', (this.fired.get('CreateVolume lostAnswer') ?? 0) + lost);
    }
  }

  /** Waits (with a deadline) until the driver holds a volume made for claim `uid`. */
  private async driverHolds(uid: string, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const volumes = await this.csi.volumes().catch(() => []);
      if (volumes.some((v) => v.claimUid === uid)) return true;
      await sleep(250);
    }
    return false;
  }
}
