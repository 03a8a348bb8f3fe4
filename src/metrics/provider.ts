/**
 * Volume usage, measured. One interface, three implementations (du.ts, statfs.ts, nil.ts); each
 * volume plugin says which applies to its volumes.
 */

export interface VolumeMetrics {
  /** Bytes used by the volume's own files. */
  usedBytes: bigint;
  /** Total bytes the volume may use (capped by the requested capacity when that is smaller). */
  capacityBytes: bigint;
  availableBytes: bigint;
  inodes: bigint;
  inodesUsed: bigint;
  inodesFree: bigint;
  /** When the measurement finished. */
  time: Date;
}

export interface MetricsProvider {
  /** Measures now. Rejects with MetricsNotSupportedError (nil) or MetricsError. */
  getMetrics(signal?: AbortSignal): Promise<VolumeMetrics>;
}

export class MetricsError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MetricsError';
  }
}

export class MetricsNotSupportedError extends MetricsError {
  constructor(what: string) {
    super(`metrics are not supported for ${what}`);
    this.name = 'MetricsNotSupportedError';
  }
}
