/**
 * Volume usage collection, kubelet's fsResourceAnalyzer for the controller: every period, measure
 * each Bound PV whose claim we know with its plugin's MetricsProvider and cache the result (the
 * last good value and the last attempt's error, per PV) for /metrics to read on scrape.
 *
 * - Runs on its own timer loop, never in the controller's work queues; passes never overlap (the
 *   next starts one period after the previous started, or as soon as it ends when it ran long).
 * - At most `concurrency` measurements at once; each has a deadline (deadline-measurement.ts).
 *   The provider gets an AbortSignal (du kills its process group), and the collector stops
 *   waiting at the deadline even when a provider ignores the signal; such a volume is skipped
 *   ("busy") until its call ends, so a stuck measurement never piles up more of itself.
 * - Types and defaults live in usage.ts (re-exported here).
 * - Only volumes bound both ways (pv.claimRef names a claim in the store, with the same uid when
 *   set) are measured and reported: their claim is what the `kubelet_volume_stats_*` labels name.
 */
import { isVolumeBoundToClaim } from '@pv-controller/kube/volume-helpers.js';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { DeadlineMeasurements, UsageFailure } from './deadline-measurement.js';
import { MetricsNotSupportedError, type VolumeMetrics } from './provider.js';
import {
  DEFAULT_COLLECT_CONCURRENCY,
  DEFAULT_STATS_PERIOD_MS,
  DEFAULT_VOLUME_TIMEOUT_MS,
  NO_PLUGIN,
  type PassSummary,
  type UsageCollectorOptions,
  type UsageError,
  type UsageErrorReason,
  type VolumeUsage,
} from './usage.js';

export type {
  ObjectLister,
  PassSummary,
  UsageCollectionObserver,
  UsageCollectorOptions,
  UsageError,
  UsageErrorReason,
  UsageSource,
  VolumeUsage,
} from './usage.js';
export { DEFAULT_COLLECT_CONCURRENCY, DEFAULT_STATS_PERIOD_MS, DEFAULT_VOLUME_TIMEOUT_MS, NO_PLUGIN } from './usage.js';

const INACTIVE_RECHECK_MS = 1000;

interface Target {
  pv: PersistentVolume;
  claim: PersistentVolumeClaim;
}

export class VolumeUsageCollector {
  private readonly entries = new Map<string, VolumeUsage>();
  private readonly measurements: DeadlineMeasurements;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<PassSummary> | undefined;
  private stopped = false;
  private lastPass: PassSummary | undefined;

  constructor(private readonly opts: UsageCollectorOptions) {
    this.measurements = new DeadlineMeasurements(opts.timeoutMs ?? DEFAULT_VOLUME_TIMEOUT_MS);
  }

  get periodMs(): number {
    return this.opts.periodMs ?? DEFAULT_STATS_PERIOD_MS;
  }

  /** Starts the loop (first pass at once). No-op when the period is 0 or less. */
  start(): void {
    if (this.periodMs <= 0 || this.stopped || this.timer || this.running) return;
    void this.loop();
  }

  /** Stops the loop, aborts measurements in progress and waits for the current pass to end. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.measurements.stop();
    await this.running?.catch(() => undefined);
  }

  /** Measures every target once now (joins a pass already running). */
  collectOnce(): Promise<PassSummary> {
    this.running ??= this.runPass().finally(() => (this.running = undefined));
    return this.running;
  }

  /** The latest pass, if any finished. */
  lastPassSummary(): PassSummary | undefined {
    return this.lastPass;
  }

  /** Cached usage of the volumes that are still bound to the claim they were measured for. */
  snapshot(): VolumeUsage[] {
    const out: VolumeUsage[] = [];
    for (const entry of this.entries.values()) {
      const target = this.targetFor(this.opts.volumes.get(entry.pvName));
      if (target && target.claim.metadata.namespace === entry.namespace && target.claim.metadata.name === entry.claimName) {
        out.push(entry);
      }
    }
    return out;
  }

  private async loop(): Promise<void> {
    const started = Date.now();
    const active = this.opts.active?.() ?? true;
    try {
      if (active) await this.collectOnce();
    } catch (err) {
      this.opts.logger?.error({ err: (err as Error).message }, 'volume usage pass failed');
    }
    if (this.stopped) return;
    const period = active ? this.periodMs : Math.min(this.periodMs, INACTIVE_RECHECK_MS);
    const wait = Math.max(0, period - (Date.now() - started));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.loop();
    }, wait);
    this.timer.unref();
  }

  private async runPass(): Promise<PassSummary> {
    const started = process.hrtime.bigint();
    const targets = this.targets();
    let next = 0;
    let failed = 0;
    const worker = async (): Promise<void> => {
      while (next < targets.length && !this.stopped) {
        const target = targets[next++];
        if (!(await this.measure(target))) failed += 1;
      }
    };
    const workers = Math.max(1, Math.min(this.opts.concurrency ?? DEFAULT_COLLECT_CONCURRENCY, targets.length));
    await Promise.all(Array.from({ length: workers }, worker));
    this.forgetGone(targets);
    const summary: PassSummary = {
      volumes: targets.length,
      measured: targets.length - failed,
      failed,
      seconds: Number(process.hrtime.bigint() - started) / 1e9,
      finishedAt: this.now(),
    };
    this.lastPass = summary;
    this.opts.observer?.passFinished(summary);
    this.opts.logger?.debug(summary, 'volume usage pass finished');
    return summary;
  }

  /** Every PV bound both ways to a claim in the store. */
  private targets(): Target[] {
    const out: Target[] = [];
    for (const pv of this.opts.volumes.list()) {
      const target = this.targetFor(pv);
      if (target) out.push(target);
    }
    return out;
  }

  private targetFor(pv: PersistentVolume | undefined): Target | undefined {
    const ref = pv?.spec.claimRef;
    if (!pv || pv.status?.phase !== 'Bound' || !ref?.name || !ref.namespace) return undefined;
    const claim = this.opts.claims.get(`${ref.namespace}/${ref.name}`);
    if (!claim || !isVolumeBoundToClaim(pv, claim) || claim.spec.volumeName !== pv.metadata.name) return undefined;
    return { pv, claim };
  }

  private forgetGone(targets: Target[]): void {
    const live = new Set(targets.map((t) => t.pv.metadata.name));
    for (const name of this.entries.keys()) if (!live.has(name)) this.entries.delete(name);
  }

  /** Measures one volume and records the outcome. Returns whether it succeeded. */
  private async measure({ pv, claim }: Target): Promise<boolean> {
    const pvName = pv.metadata.name ?? '';
    const started = process.hrtime.bigint();
    let plugin = NO_PLUGIN;
    let outcome: VolumeMetrics | UsageError;
    try {
      const found = this.opts.source.providerFor(pv);
      if (!found) throw new UsageFailure('no_plugin', 'no volume plugin of this controller owns the volume');
      plugin = found.plugin;
      outcome = await this.measurements.call(pvName, found.provider);
    } catch (err) {
      outcome = this.classify(err);
    }
    const failure = 'reason' in outcome ? outcome : undefined;
    this.opts.observer?.volumeMeasured(plugin, Number(process.hrtime.bigint() - started) / 1e9, failure?.reason);
    this.record(pvName, claim, plugin, outcome);
    return failure === undefined;
  }

  /** Caches a measurement; a failure keeps the last good numbers measured for the same claim. */
  private record(pvName: string, claim: PersistentVolumeClaim, plugin: string, outcome: VolumeMetrics | UsageError): void {
    const entry: VolumeUsage = {
      pvName,
      namespace: claim.metadata.namespace ?? '',
      claimName: claim.metadata.name ?? '',
      plugin,
      lastAttempt: this.now(),
    };
    if (!('reason' in outcome)) {
      entry.metrics = outcome;
    } else {
      entry.error = outcome;
      const previous = this.entries.get(pvName);
      if (previous?.metrics && previous.namespace === entry.namespace && previous.claimName === entry.claimName) {
        entry.metrics = previous.metrics;
      }
      if (outcome.reason !== 'not_supported' && !this.stopped) this.logUnmeasured(pvName, outcome, previous?.error);
    }
    this.entries.set(pvName, entry);
  }

  /**
   * A volume that cannot be measured is said once, at WARN, when it starts failing or fails for
   * another reason; the same failure on every later pass (a static PV no plugin of ours owns
   * fails each minute) is DEBUG. The usage table and the metrics still show it each pass.
   */
  private logUnmeasured(pvName: string, outcome: UsageError, before: UsageError | undefined): void {
    const fields = { pv: pvName, reason: outcome.reason, err: outcome.message };
    if (before?.reason === outcome.reason && before.message === outcome.message) this.opts.logger?.debug(fields, 'volume usage still not measured');
    else this.opts.logger?.warn(fields, 'volume usage not measured (said once; repeats are logged at debug level)');
  }

  private classify(err: unknown): UsageError {
    if (err instanceof UsageFailure) return this.error(err.reason, err.message);
    if (err instanceof MetricsNotSupportedError) return this.error('not_supported', err.message);
    return this.error('failed', err instanceof Error ? err.message : String(err));
  }

  private error(reason: UsageErrorReason, message: string): UsageError {
    return { reason, message, at: this.now() };
  }

  private now(): Date {
    return this.opts.now ? this.opts.now() : new Date();
  }
}
