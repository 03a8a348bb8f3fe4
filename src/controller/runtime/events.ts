/**
 * `EventRecorder` writing core/v1 Events the way client-go's recorder does: a repeat of the same
 * (object, type, reason, message) within 10 minutes bumps `count` and `lastTimestamp` on the
 * existing Event (merge PATCH) instead of creating another; a per-object token bucket (burst 25,
 * one token per 5 minutes) drops floods. Recording never blocks or fails a sync: events go into a
 * bounded queue drained in the background, and failures are only logged.
 */
import type { Logger } from 'pino';
import type { EventRecorder, EventType } from './context.js';
import { EVENT_COMPONENT } from '@pv-controller/kube/annotations.js';
import { isNotFound } from '@pv-controller/kube/errors.js';
import type { CoreEvent, KubeObject, ObjectReference } from '@pv-controller/kube/types.js';
import type { KubeApiClient } from '../../kube-client/kube-api-client.js';
import { TokenBucket } from '../../kube-client/rate-limiter.js';

export interface EventRecorderOptions {
  host?: string;
  /** Repeats within this window are aggregated (default 10 min). */
  aggregateWindowMs?: number;
  /** Pending events above this are dropped (default 1000). */
  maxPending?: number;
  /** Spam filter: burst and refill per object (default 25 and 1 per 300 s). */
  spamBurst?: number;
  spamQps?: number;
  now?: () => Date;
}

interface PendingEvent {
  ref: ObjectReference;
  type: EventType;
  reason: string;
  message: string;
  at: Date;
}

interface SeenEvent {
  namespace: string;
  name: string;
  count: number;
  firstTimestamp: string;
  lastSeenMs: number;
}

const MAX_REMEMBERED = 4096;

export class KubeEventRecorder implements EventRecorder {
  private readonly pending: PendingEvent[] = [];
  private readonly seen = new Map<string, SeenEvent>();
  private readonly spam = new Map<string, TokenBucket>();
  private draining: Promise<void> | undefined;
  readonly counts = { written: 0, aggregated: 0, dropped: 0, failed: 0 };

  constructor(
    private readonly api: KubeApiClient,
    private readonly log: Logger,
    private readonly opts: EventRecorderOptions = {},
  ) {}

  event(obj: KubeObject, type: EventType, reason: string, message: string): void {
    const ref = referenceTo(obj);
    if (!this.allowedBySpamFilter(ref) || this.pending.length >= (this.opts.maxPending ?? 1000)) {
      this.counts.dropped += 1;
      return;
    }
    this.pending.push({ ref, type, reason, message, at: this.now() });
    this.draining ??= this.drain().finally(() => {
      this.draining = undefined;
    });
  }

  /** Resolves when every event recorded so far has been written (or dropped). */
  async flush(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private now(): Date {
    return this.opts.now?.() ?? new Date();
  }

  private allowedBySpamFilter(ref: ObjectReference): boolean {
    const key = `${ref.kind ?? ''}/${ref.namespace ?? ''}/${ref.name ?? ''}/${ref.uid ?? ''}`;
    let bucket = this.spam.get(key);
    if (!bucket) {
      if (this.spam.size >= MAX_REMEMBERED) this.spam.delete(this.spam.keys().next().value as string);
      bucket = new TokenBucket(this.opts.spamQps ?? 1 / 300, this.opts.spamBurst ?? 25);
      this.spam.set(key, bucket);
    }
    return bucket.tryAcquire();
  }

  private async drain(): Promise<void> {
    for (let ev = this.pending.shift(); ev; ev = this.pending.shift()) {
      try {
        await this.write(ev);
      } catch (err) {
        this.counts.failed += 1;
        this.log.warn(
          { reason: ev.reason, object: `${ev.ref.namespace ?? ''}/${ev.ref.name ?? ''}`, err: err instanceof Error ? err.message : String(err) },
          'could not write event',
        );
      }
    }
  }

  private async write(ev: PendingEvent): Promise<void> {
    const key = aggregationKey(ev);
    const prior = this.seen.get(key);
    const window = this.opts.aggregateWindowMs ?? 10 * 60_000;
    const stamp = ev.at.toISOString().replace(/\.\d+Z$/, 'Z');
    if (prior && ev.at.getTime() - prior.lastSeenMs < window) {
      prior.count += 1;
      prior.lastSeenMs = ev.at.getTime();
      try {
        await this.api.patchEvent(prior.namespace, prior.name, { count: prior.count, lastTimestamp: stamp });
        this.counts.aggregated += 1;
        return;
      } catch (err) {
        if (!isNotFound(err)) throw err;
        // Someone deleted the Event: start a fresh one below.
      }
    }
    const created = await this.api.createEvent(this.buildEvent(ev, stamp));
    this.counts.written += 1;
    this.remember(key, {
      namespace: created.metadata.namespace ?? namespaceFor(ev.ref),
      name: created.metadata.name ?? '',
      count: created.count ?? 1,
      firstTimestamp: stamp,
      lastSeenMs: ev.at.getTime(),
    });
  }

  private buildEvent(ev: PendingEvent, stamp: string): CoreEvent {
    const namespace = namespaceFor(ev.ref);
    return {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${ev.ref.name ?? 'object'}.${(BigInt(ev.at.getTime()) * 1_000_000n + BigInt(Math.floor(Math.random() * 1e6))).toString(16)}`, namespace },
      involvedObject: ev.ref,
      reason: ev.reason,
      message: ev.message,
      type: ev.type,
      source: { component: EVENT_COMPONENT, ...(this.opts.host ? { host: this.opts.host } : {}) },
      firstTimestamp: stamp,
      lastTimestamp: stamp,
      count: 1,
      eventTime: null,
      reportingComponent: EVENT_COMPONENT,
      reportingInstance: this.opts.host ?? '',
    };
  }

  private remember(key: string, seen: SeenEvent): void {
    if (this.seen.size >= MAX_REMEMBERED) this.seen.delete(this.seen.keys().next().value as string);
    this.seen.set(key, seen);
  }
}

/** The involvedObject of an event about `obj`. */
export function referenceTo(obj: KubeObject): ObjectReference {
  const ref: ObjectReference = {
    kind: obj.kind,
    apiVersion: obj.apiVersion,
    name: obj.metadata.name,
    uid: obj.metadata.uid,
    resourceVersion: obj.metadata.resourceVersion,
  };
  if (obj.metadata.namespace) ref.namespace = obj.metadata.namespace;
  if (!ref.kind && (obj as { spec?: { claimRef?: unknown } }).spec !== undefined) {
    ref.kind = obj.metadata.namespace ? 'PersistentVolumeClaim' : 'PersistentVolume';
    ref.apiVersion = 'v1';
  }
  return ref;
}

/** Events about cluster-scoped objects (PVs) live in "default", as upstream. */
function namespaceFor(ref: ObjectReference): string {
  return ref.namespace || 'default';
}

function aggregationKey(ev: PendingEvent): string {
  const r = ev.ref;
  return [r.kind, r.namespace, r.name, r.uid, ev.type, ev.reason, ev.message].join('\u0000');
}
