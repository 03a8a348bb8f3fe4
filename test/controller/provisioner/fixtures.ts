/** Builders for provisioner tests: a scriptable in-memory volume plugin, claims, classes, a harness. */
import { pino } from 'pino';
import type { PersistentVolume, PersistentVolumeClaim, StorageClass } from '@pv-controller/kube/types.js';
import { formatBytes } from '@pv-controller/kube/quantity.js';
import { MetricsNotSupportedError, type MetricsProvider } from '../../../src/metrics/provider.js';
import type { DeleteRequest, ProvisionedVolume, ProvisionRequest, VolumePlugin } from '../../../src/plugins/api/core.js';
import { PluginError, type ParameterProblem } from '../../../src/plugins/api/errors.js';
import { PluginRegistry } from '../../../src/plugins/registry.js';
import { Provisioner, type ProvisionerOptions } from '../../../src/controller/provisioner/index.js';
import type { OperationObserver } from '../../../src/metrics/prometheus.js';
import { FakeCluster } from '../../helpers/fake-context.js';

export const FAKE_PROVISIONER = 'example.com/fake';

export interface Gate {
  /** Resolves when the held call has started. */
  reached: Promise<void>;
  release(): void;
}

function gate(): { gate: Gate; wait: Promise<void>; arrived: () => void } {
  let arrived!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((resolve) => (arrived = resolve));
  const wait = new Promise<void>((resolve) => (release = resolve));
  return { gate: { reached, release }, wait, arrived };
}

/**
 * A volume plugin that keeps its volumes in a Map, by backing name: provision is idempotent,
 * delete of a missing volume succeeds. Calls can be failed or held; every call is recorded.
 */
export class FakePlugin implements VolumePlugin {
  readonly name: string;
  readonly maxBackingNameLength = 63;
  readonly volumes = new Map<string, ProvisionRequest>();
  readonly provisionCalls: ProvisionRequest[] = [];
  readonly deleteCalls: DeleteRequest[] = [];
  inFlight = 0;
  maxInFlight = 0;
  /** Called at the start of every provision (e.g. to look at the server's state then). */
  onProvision?: (req: ProvisionRequest) => void;
  private provisionFailures: Error[] = [];
  private deleteFailures: Error[] = [];
  private holds: { wait: Promise<void>; arrived: () => void }[] = [];

  constructor(name = FAKE_PROVISIONER) {
    this.name = name;
  }

  failProvision(err: Error = new PluginError('Backend', 'backend exploded', true), times = 1): void {
    for (let i = 0; i < times; i++) this.provisionFailures.push(err);
  }
  failDelete(err: Error = new PluginError('Backend', 'backend refused the delete', true), times = 1): void {
    for (let i = 0; i < times; i++) this.deleteFailures.push(err);
  }
  /** The next provision call waits (after being recorded, before creating) until released. */
  holdProvision(): Gate {
    const g = gate();
    this.holds.push({ wait: g.wait, arrived: g.arrived });
    return g.gate;
  }

  validateParameters(parameters: Record<string, string>): ParameterProblem[] {
    return Object.keys(parameters)
      .filter((key) => key !== 'tier')
      .map((key) => ({ parameter: key, message: `unknown parameter "${key}" for ${this.name}` }));
  }

  handles(pv: PersistentVolume): boolean {
    return pv.spec.csi?.driver === this.name;
  }

  async provision(req: ProvisionRequest): Promise<ProvisionedVolume> {
    this.provisionCalls.push(req);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      this.onProvision?.(req);
      const hold = this.holds.shift();
      if (hold) {
        hold.arrived();
        await hold.wait;
      }
      const failure = this.provisionFailures.shift();
      if (failure) throw failure;
      this.volumes.set(req.backingName, req);
      const result: ProvisionedVolume = {
        source: { csi: { driver: this.name, volumeHandle: req.backingName } },
        capacity: formatBytes(req.requestBytes + 1024n * 1024n * 1024n),
        labels: { 'example.com/pool': 'a' },
      };
      if (req.selectedNode) {
        result.nodeAffinity = {
          required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [req.selectedNode] }] }] },
        };
      }
      return result;
    } finally {
      this.inFlight--;
    }
  }

  async delete(req: DeleteRequest): Promise<void> {
    this.deleteCalls.push(req);
    const failure = this.deleteFailures.shift();
    if (failure) throw failure;
    this.volumes.delete(req.backingName);
  }

  metricsFor(): MetricsProvider {
    return { getMetrics: () => Promise.reject(new MetricsNotSupportedError('fake volumes')) };
  }
}

export interface ClaimOptions {
  ns?: string;
  cls?: string;
  size?: string;
  annotations?: Record<string, string>;
  finalizers?: string[];
  deleting?: boolean;
  volumeMode?: string;
}

export function claim(name: string, o: ClaimOptions = {}): PersistentVolumeClaim {
  const pvc: PersistentVolumeClaim = {
    metadata: { name, namespace: o.ns ?? 'default', labels: { app: 'db' } },
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: o.size ?? '1Gi' } },
      storageClassName: o.cls ?? 'fast',
    },
    status: { phase: 'Pending' },
  };
  if (o.annotations) pvc.metadata.annotations = { ...o.annotations };
  if (o.finalizers) pvc.metadata.finalizers = [...o.finalizers];
  if (o.deleting) pvc.metadata.deletionTimestamp = '2024-01-01T00:00:00Z';
  if (o.volumeMode) pvc.spec.volumeMode = o.volumeMode;
  return pvc;
}

export function storageClass(
  name: string,
  o: { provisioner?: string; mode?: string; policy?: string; parameters?: Record<string, string>; mountOptions?: string[] } = {},
): StorageClass {
  const sc: StorageClass = {
    metadata: { name },
    provisioner: o.provisioner ?? FAKE_PROVISIONER,
    volumeBindingMode: o.mode ?? 'Immediate',
  };
  if (o.policy) sc.reclaimPolicy = o.policy;
  if (o.parameters) sc.parameters = { ...o.parameters };
  if (o.mountOptions) sc.mountOptions = [...o.mountOptions];
  return sc;
}

export interface MetricRecord {
  plugin: string;
  operation: string;
  seconds: number;
  error?: Error;
}

export function recordingMetrics(): OperationObserver & { records: MetricRecord[] } {
  const records: MetricRecord[] = [];
  return {
    records,
    onOperation(plugin, operation, seconds, error) {
      records.push({ plugin, operation, seconds, ...(error ? { error } : {}) });
    },
  };
}

export interface Harness {
  fake: FakeCluster;
  plugin: FakePlugin;
  provisioner: Provisioner;
  metrics: ReturnType<typeof recordingMetrics>;
}

export function harness(options: Partial<Omit<ProvisionerOptions, 'ctx' | 'plugins'>> & { fake?: FakeCluster; plugin?: FakePlugin } = {}): Harness {
  const { fake: givenFake, plugin: givenPlugin, ...rest } = options;
  const fake = givenFake ?? new FakeCluster();
  const plugin = givenPlugin ?? new FakePlugin();
  const metrics = recordingMetrics();
  const provisioner = new Provisioner({
    ctx: fake.ctx,
    plugins: new PluginRegistry([plugin]),
    clusterName: 'unit',
    logger: pino({ level: 'silent' }),
    metrics,
    createRetryDelayMs: 1,
    initialBackoffMs: 60_000,
    ...rest,
  });
  return { fake, plugin, provisioner, metrics };
}

export { waitFor } from '../../helpers/wait.js';
