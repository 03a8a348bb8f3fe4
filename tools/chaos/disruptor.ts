/**
 * The chaos itself, one seeded choice at a time while the workload runs: SIGKILL a controller
 * and restart it, run a second controller for a stretch (leader election on), run two without
 * leader election for a stretch, SIGKILL the embedded API server and restart it on the same data,
 * queue cloud faults in the EC2 emulator, raise the proxy's API fault rate for a burst, and
 * (with a CSI driver) fault the calls between the controllers and the driver (csi-faults.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { FaultKind } from '../../test/emulators/loopback.js';
import type { Ec2Emulator } from '../../test/emulators/ec2.js';
import type { CsiDisruptions } from './csi-faults.js';
import type { ControllerFleet, EmbeddedApiServer } from './processes.js';
import type { Prng } from './prng.js';
import type { FaultProxy } from './proxy.js';

const CLOUD_ACTIONS = ['CreateVolume', 'DescribeVolumes', 'DeleteVolume', 'DescribeAvailabilityZones'] as const;

export interface DisruptorOptions {
  fleet: ControllerFleet;
  /** The embedded API server; undefined against a real control plane (never killed there). */
  apiServer: EmbeddedApiServer | undefined;
  proxy: FaultProxy;
  ec2: Ec2Emulator;
  /** The CSI actions, when the run has a CSI driver. */
  csi?: CsiDisruptions;
  random: Prng;
  /** The proxy's fault rate outside bursts. */
  apiFaultRate: number;
  log(line: string): void;
}

type Action = 'killController' | 'twoControllers' | 'unelected' | 'killApiServer' | 'cloudFaults' | 'apiBurst' | 'csiFaults' | 'csiClaimDeletedMidCreate';

interface Stretch {
  elected: boolean;
  until: number;
}

export class Disruptor {
  twoControllerStretches = 0;
  unelectedStretches = 0;
  apiFaultBursts = 0;
  /** Cloud faults queued, per emulator action, in queue order. */
  private readonly cloudQueued = new Map<string, FaultKind[]>();
  private stretch: Stretch | undefined;

  constructor(private readonly o: DisruptorOptions) {}

  /** Sets the base fault rate, starts one elected controller, and disrupts until `stop()`. */
  async run(stop: () => boolean): Promise<void> {
    const r = this.o.random;
    this.setApiFaultRate(this.o.apiFaultRate);
    // Every run, however short, kills a controller and (embedded) the API server at least once, and
    // with a CSI driver deletes a claim mid-CreateVolume and kills the controllers (#486's shape).
    const first: Action[] = ['killController', ...(this.o.apiServer ? (['killApiServer'] as const) : []), ...(this.o.csi ? (['csiClaimDeletedMidCreate'] as const) : [])];
    while (!stop()) {
      await sleep(r.int(1000, 3500));
      if (this.stretch && Date.now() > this.stretch.until) await this.endStretch();
      await this.act(r, first.shift());
    }
    await this.endStretch();
  }

  /** Cloud faults that were actually suffered (queued and taken), by kind. */
  cloudFaultsFired(): Record<string, number> {
    const fired: Record<string, number> = {};
    for (const [action, kinds] of this.cloudQueued) {
      const taken = kinds.length - this.o.ec2.faults.pending(action);
      for (const kind of kinds.slice(0, taken)) fired[kind] = (fired[kind] ?? 0) + 1;
    }
    return fired;
  }

  private setApiFaultRate(rate: number): void {
    this.o.proxy.setRandomFaults({ rate, random: this.o.random.fork('proxy'), weights: { timeout: 0.15, slow: 0.6 } });
  }

  private async act(r: Prng, forced?: Action): Promise<void> {
    const action: Action = forced ?? r.weighted({
      killController: 2,
      twoControllers: this.stretch ? 0 : 0.8,
      unelected: this.stretch ? 0 : 0.5,
      killApiServer: this.o.apiServer ? 0.9 : 0,
      cloudFaults: 6,
      apiBurst: 1,
      csiFaults: this.o.csi ? 5 : 0,
    });
    switch (action) {
      case 'killController':
        return this.killController(r);
      case 'twoControllers':
        this.twoControllerStretches++;
        this.o.fleet.start(true);
        this.stretch = { elected: true, until: Date.now() + r.int(4000, 10_000) };
        return this.o.log('two controllers with leader election');
      case 'unelected':
        return this.startUnelectedStretch(r);
      case 'killApiServer':
        return this.killApiServer(r);
      case 'cloudFaults':
        return this.queueCloudFaults(r);
      case 'csiFaults':
        return this.o.csi?.act(r);
      case 'csiClaimDeletedMidCreate':
        return this.o.csi?.claimDeletedMidCreate();
      case 'apiBurst':
        this.apiFaultBursts++;
        this.setApiFaultRate(0.35);
        await sleep(r.int(1000, 3000));
        this.setApiFaultRate(this.o.apiFaultRate);
    }
  }

  private async killController(r: Prng): Promise<void> {
    if (this.o.fleet.count() > 0) await this.o.fleet.kill(r.int(0, 9));
    await sleep(r.int(0, 1500));
    this.o.fleet.start(this.stretch ? this.stretch.elected : true);
  }

  private async startUnelectedStretch(r: Prng): Promise<void> {
    this.unelectedStretches++;
    while (this.o.fleet.count() > 0) await this.o.fleet.kill(0);
    this.o.fleet.start(false);
    this.o.fleet.start(false);
    this.stretch = { elected: false, until: Date.now() + r.int(4000, 8000) };
    this.o.log('two controllers without leader election');
  }

  /** Back to one elected controller. */
  private async endStretch(): Promise<void> {
    if (!this.stretch) return;
    const elected = this.stretch.elected;
    this.stretch = undefined;
    if (elected) {
      while (this.o.fleet.count() > 1) await this.o.fleet.kill(0);
    } else {
      while (this.o.fleet.count() > 0) await this.o.fleet.kill(0);
    }
    if (this.o.fleet.count() === 0) this.o.fleet.start(true);
  }

  private async killApiServer(r: Prng): Promise<void> {
    const server = this.o.apiServer!;
    await server.kill();
    this.o.log(`API server killed (${server.kills})`);
    await sleep(r.int(0, 2000));
    await server.restart();
  }

  private queueCloudFaults(r: Prng): void {
    const action = r.pick(CLOUD_ACTIONS);
    const kind: FaultKind = r.weighted({ serverError: 3, throttle: 3, hang: 0.4, lostResponse: action === 'CreateVolume' ? 2 : 0.5 });
    const times = r.int(2, 5);
    this.o.ec2.faults.inject(action, kind, times);
    const queued = this.cloudQueued.get(action) ?? [];
    for (let i = 0; i < times; i++) queued.push(kind);
    this.cloudQueued.set(action, queued);
  }
}
