/**
 * What the volume usage collector (collector.ts) reads and reports: its options and sources,
 * the cached usage per volume, the failure reasons that become the `reason` label, and the pass
 * summary observers get (prometheus.ts).
 */
import type { Logger } from 'pino';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import type { MetricsProvider, VolumeMetrics } from './provider.js';

/** Why a volume has no fresh numbers (the `reason` label of the error metrics). */
export type UsageErrorReason = 'timeout' | 'not_supported' | 'no_plugin' | 'busy' | 'failed';

export interface UsageError {
  reason: UsageErrorReason;
  message: string;
  at: Date;
}

/** What the collector knows about one measured volume. */
export interface VolumeUsage {
  pvName: string;
  namespace: string;
  claimName: string;
  /** The plugin that measured it, or "N/A" when none owns the volume. */
  plugin: string;
  /** The last successful measurement (kept when later attempts fail). */
  metrics?: VolumeMetrics;
  /** The error of the latest attempt; absent when the latest attempt succeeded. */
  error?: UsageError;
  lastAttempt: Date;
}

/** The plugin side of measuring: which plugin owns a PV and its provider. */
export interface UsageSource {
  /** Undefined when no plugin of ours owns the volume. May throw (reported as "failed"). */
  providerFor(pv: PersistentVolume): { plugin: string; provider: MetricsProvider } | undefined;
}

/** Minimal read access to the controller's stores. */
export interface ObjectLister<T> {
  get(key: string): T | undefined;
  list(): T[];
}

/** Told about each measurement and each pass (prometheus.ts turns these into metrics). */
export interface UsageCollectionObserver {
  volumeMeasured(plugin: string, seconds: number, error?: UsageErrorReason): void;
  passFinished(summary: PassSummary): void;
}

export interface PassSummary {
  volumes: number;
  measured: number;
  failed: number;
  seconds: number;
  finishedAt: Date;
}

export interface UsageCollectorOptions {
  volumes: ObjectLister<PersistentVolume>;
  claims: ObjectLister<PersistentVolumeClaim>;
  source: UsageSource;
  /** `--volume-stats-agg-period` in ms; 0 (or less) disables the loop. Default 60 s. */
  periodMs?: number;
  /** Measurements running at once. Default 4. */
  concurrency?: number;
  /** Deadline of one volume's measurement. Default 2 minutes. */
  timeoutMs?: number;
  /** The loop measures only while this is true (e.g. caches synced and leading); rechecked every second. */
  active?: () => boolean;
  observer?: UsageCollectionObserver;
  logger?: Logger;
  now?: () => Date;
}

export const DEFAULT_STATS_PERIOD_MS = 60_000;
export const DEFAULT_COLLECT_CONCURRENCY = 4;
export const DEFAULT_VOLUME_TIMEOUT_MS = 120_000;
export const NO_PLUGIN = 'N/A';
