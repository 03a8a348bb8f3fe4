/**
 * In-process request accounting: counts by verb and resource, responses by code, 409s, and a
 * bounded log of recent requests — what tests assert on and the benchmark divides by.
 */
import type { RequestMetricLabels } from './metrics.js';

export interface RequestRecord {
  verb: string;
  /** "persistentvolumes", "persistentvolumeclaims/status", "storageclasses.storage.k8s.io"; '' for non-resource paths. */
  resource: string;
  namespace?: string;
  name?: string;
  code: number;
  /** The labels of kube-apiserver's request metrics, for the requests /metrics counts. */
  labels?: RequestMetricLabels;
}

export interface ApiStats {
  /** All requests served (resource and non-resource). */
  requests: number;
  /** Resource requests by verb ("get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"). */
  byVerb: Record<string, number>;
  /** Resource requests by "verb resource", e.g. "update persistentvolumes/status". */
  byVerbResource: Record<string, number>;
  /** Responses by HTTP code. */
  byCode: Record<string, number>;
  /** 409 responses with reason Conflict (stale resourceVersion or failed precondition). */
  conflicts: number;
  /** 409 responses with reason AlreadyExists. */
  alreadyExists: number;
  /** Watches open right now. */
  activeWatches: number;
}

const RECENT_LIMIT = 1000;

export class RequestStats {
  private requests = 0;
  private byVerb: Record<string, number> = {};
  private byVerbResource: Record<string, number> = {};
  private byCode: Record<string, number> = {};
  private conflicts = 0;
  private alreadyExists = 0;
  private recentLog: RequestRecord[] = [];

  record(r: RequestRecord, reason?: string): void {
    this.requests++;
    this.byCode[r.code] = (this.byCode[r.code] ?? 0) + 1;
    if (r.code === 409) {
      if (reason === 'AlreadyExists') this.alreadyExists++;
      else this.conflicts++;
    }
    if (r.resource !== '') {
      this.byVerb[r.verb] = (this.byVerb[r.verb] ?? 0) + 1;
      const key = `${r.verb} ${r.resource}`;
      this.byVerbResource[key] = (this.byVerbResource[key] ?? 0) + 1;
    }
    this.recentLog.push(r);
    if (this.recentLog.length > RECENT_LIMIT * 2) this.recentLog = this.recentLog.slice(-RECENT_LIMIT);
  }

  snapshot(activeWatches: number): ApiStats {
    return {
      requests: this.requests,
      byVerb: { ...this.byVerb },
      byVerbResource: { ...this.byVerbResource },
      byCode: { ...this.byCode },
      conflicts: this.conflicts,
      alreadyExists: this.alreadyExists,
      activeWatches,
    };
  }

  /** The most recent requests, oldest first (at most 1000). */
  recent(): RequestRecord[] {
    return this.recentLog.slice(-RECENT_LIMIT);
  }

  reset(): void {
    this.requests = 0;
    this.byVerb = {};
    this.byVerbResource = {};
    this.byCode = {};
    this.conflicts = 0;
    this.alreadyExists = 0;
    this.recentLog = [];
  }
}
