/** Builders for reclaimer tests: a scripted volume plugin and a fake cluster wired to a Reclaimer. */
import { pino } from 'pino';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { ANN_BOUND_BY_CONTROLLER, ANN_PROVISIONED_BY } from '@pv-controller/kube/annotations.js';
import { claimRefFor } from '@pv-controller/kube/volume-helpers.js';
import type { SyncResult } from '../../../src/controller/runtime/sync-result.js';
import { Reclaimer, type ReclaimerOptions } from '../../../src/controller/reclaimer/index.js';
import { NilMetricsProvider } from '../../../src/metrics/nil.js';
import type { DeleteRequest, VolumePlugin } from '../../../src/plugins/api/core.js';
import { PluginError } from '../../../src/plugins/api/errors.js';
import { PluginRegistry } from '../../../src/plugins/registry.js';
import { FakeCluster } from '../../helpers/fake-context.js';

export const FAKE_PROVISIONER = 'kubernetes.io/fake';
export const FAKE_ROOT = '/fake/';
export const INTERVAL = 60_000;

export interface PluginCall {
  op: 'delete' | 'recycle';
  pv: string;
  backingName?: string;
  /** The attempts annotation the server held when the plugin was called. */
  attemptsOnServer?: string;
}

/** A plugin for PVs under /fake/: each call takes the next scripted outcome (default: success). */
export class ScriptedPlugin implements VolumePlugin {
  readonly name: string = FAKE_PROVISIONER;
  readonly maxBackingNameLength = 63;
  readonly calls: PluginCall[] = [];
  readonly outcomes: Array<Error | undefined> = [];
  recycle?: (pv: PersistentVolume) => Promise<void>;

  constructor(
    private readonly fake: FakeCluster,
    options: { recycle?: boolean } = {},
  ) {
    if (options.recycle !== false) this.recycle = (pv) => this.call('recycle', pv);
  }

  validateParameters(): [] {
    return [];
  }
  handles(pv: PersistentVolume): boolean {
    return pv.spec.hostPath?.path.startsWith(FAKE_ROOT) ?? false;
  }
  provision(): Promise<never> {
    return Promise.reject(new PluginError('NotSupported', 'not in these tests', false));
  }
  delete(req: DeleteRequest): Promise<void> {
    return this.call('delete', req.pv!, req.backingName);
  }
  metricsFor(): NilMetricsProvider {
    return new NilMetricsProvider("fake volume");
  }

  private async call(op: 'delete' | 'recycle', pv: PersistentVolume, backingName?: string): Promise<void> {
    const name = pv.metadata.name ?? '';
    const attemptsOnServer = this.fake.volume(name)?.metadata.annotations?.['pv-controller.io/reclaim-failed-attempts'];
    this.calls.push({ op, pv: name, ...(backingName ? { backingName } : {}), ...(attemptsOnServer ? { attemptsOnServer } : {}) });
    const outcome = this.outcomes.shift();
    if (outcome) throw outcome;
  }
}

export interface Rig {
  fake: FakeCluster;
  plugin: ScriptedPlugin;
  reclaimer: Reclaimer;
  /** reclaimVolume on the cached copy, then wait for the plugin call it started. */
  reclaim(name?: string): Promise<SyncResult>;
  /** syncVolume (pre-binder step) on the cached copy, then wait. */
  presync(name?: string): Promise<SyncResult | undefined>;
}

export function rig(options: Partial<ReclaimerOptions> & { recycle?: boolean } = {}): Rig {
  const fake = new FakeCluster();
  const plugin = new ScriptedPlugin(fake, { recycle: options.recycle });
  const reclaimer = new Reclaimer({
    ctx: fake.ctx,
    plugins: new PluginRegistry([plugin]),
    maxAttempts: 3,
    retryIntervalMs: INTERVAL,
    logger: pino({ level: 'silent' }),
    ...options,
  });
  return {
    fake,
    plugin,
    reclaimer,
    async reclaim(name = 'v') {
      const result = await reclaimer.reclaimVolume(fake.ctx.volumes.get(name)!);
      await reclaimer.settled();
      return result;
    },
    async presync(name = 'v') {
      const result = await reclaimer.syncVolume(fake.ctx.volumes.get(name)!);
      await reclaimer.settled();
      return result;
    },
  };
}

export function claim(name: string, uid = `uid-${name}`): PersistentVolumeClaim {
  return {
    metadata: { name, namespace: 'default', uid },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    status: { phase: 'Bound' },
  };
}

export interface VolumeOptions {
  policy?: string;
  phase?: string;
  /** The claim the PV was bound to (default: a claim "c" that does not exist). */
  claim?: PersistentVolumeClaim | null;
  byController?: boolean;
  provisionedBy?: string;
  path?: string;
  finalizers?: string[];
  annotations?: Record<string, string>;
}

export function volume(name: string, o: VolumeOptions = {}): PersistentVolume {
  const annotations: Record<string, string> = { ...o.annotations };
  if (o.byController !== false) annotations[ANN_BOUND_BY_CONTROLLER] = 'yes';
  if (o.provisionedBy) annotations[ANN_PROVISIONED_BY] = o.provisionedBy;
  const pv: PersistentVolume = {
    metadata: { name, annotations, ...(o.finalizers ? { finalizers: o.finalizers } : {}) },
    spec: {
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: o.policy ?? 'Delete',
      hostPath: { path: o.path ?? `${FAKE_ROOT}${name}` },
    },
    status: { phase: o.phase ?? 'Released' },
  };
  const bound = o.claim === undefined ? claim('c') : o.claim;
  if (bound) pv.spec.claimRef = claimRefFor(bound);
  return pv;
}
