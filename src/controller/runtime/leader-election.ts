/**
 * Lease-based leader election (coordination.k8s.io/v1), following client-go's
 * tools/leaderelection: acquire when the lease is free or its holder has not renewed it for
 * `leaseDuration` as measured by our own monotonic clock (never the server's timestamps, so skew
 * does not matter); renew every `retryPeriod`; stop leading when no renew succeeded within
 * `renewDeadline`. Every write carries the observed resourceVersion (optimistic concurrency).
 * `isLeader()` is what the client's write guard asks before each write. Losing the lease ends the
 * election for this elector (kube-controller-manager exits and is restarted to stand again).
 */
import os from 'node:os';
import { randomUUID } from 'node:crypto';
import { V1MicroTime, type V1Lease } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { isAlreadyExists, isConflict, isNotFound } from '@pv-controller/kube/errors.js';
import type { Lease, LeaseSpec } from '@pv-controller/kube/types.js';
import { asModel, toPlain } from '../../kube-client/model-json.js';
import type { RestTransport } from '../../kube-client/transport.js';
import { delay } from '../../backoff.js';

export interface LeaderElectionOptions {
  namespace: string;
  name: string;
  identity?: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

export interface LeaderCallbacks {
  onStartedLeading?: () => void;
  onStoppedLeading?: () => void;
  onNewLeader?: (identity: string) => void;
}

/** Holder identity as kube-controller-manager builds it: hostname_uuid. */
export function defaultIdentity(): string {
  return `${os.hostname()}_${randomUUID()}`;
}

/** A Lease timestamp with 6 fractional digits (a real API server rejects 3). */
export function microTime(date = new Date()): string {
  return new V1MicroTime(date.getTime()).toISOString();
}

export class LeaderElector {
  readonly identity: string;
  private readonly stopper = new AbortController();
  private leading = false;
  private lastRenewAt = 0;
  private observed: { record: string; at: number } | undefined;
  private observedLease: Lease | undefined;
  private loop: Promise<void> | undefined;
  private leaderSignal = new AbortController();
  private deadlineTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly transport: RestTransport,
    private readonly opts: LeaderElectionOptions,
    private readonly callbacks: LeaderCallbacks,
    private readonly log: Logger,
  ) {
    this.identity = opts.identity ?? defaultIdentity();
  }

  /** True while we hold the lease and renewed it within the renew deadline. */
  isLeader(): boolean {
    return this.leading && performance.now() - this.lastRenewAt < this.opts.renewDeadlineMs;
  }

  /** Aborts the moment leadership is lost (a fresh signal per term). */
  get signal(): AbortSignal {
    return this.leaderSignal.signal;
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Stops electing; if leading, releases the lease so another process takes over at once. */
  async stop(): Promise<void> {
    this.stopper.abort();
    await this.loop;
    if (this.leading) {
      await this.release();
      this.loseLeadership('stopped');
    }
  }

  private async run(): Promise<void> {
    const stop = this.stopper.signal;
    while (!stop.aborted) {
      const ok = await this.tryAcquireOrRenew();
      if (ok) {
        this.lastRenewAt = performance.now();
        if (!this.leading) this.startLeading();
        this.armDeadline();
      } else if (this.leading && performance.now() - this.lastRenewAt >= this.opts.renewDeadlineMs) {
        this.loseLeadership('renew deadline passed');
      }
      await delay(this.opts.retryPeriodMs, stop);
    }
  }

  /** Leadership ends at the renew deadline even if the loop is stuck in a slow request. */
  private armDeadline(): void {
    clearTimeout(this.deadlineTimer);
    this.deadlineTimer = setTimeout(() => this.loseLeadership('renew deadline passed'), this.opts.renewDeadlineMs);
    this.deadlineTimer.unref();
  }

  private startLeading(): void {
    this.leading = true;
    this.leaderSignal = new AbortController();
    this.log.info({ lease: `${this.opts.namespace}/${this.opts.name}`, identity: this.identity }, 'became leader');
    this.callbacks.onStartedLeading?.();
  }

  private loseLeadership(why: string): void {
    if (!this.leading) return;
    this.leading = false;
    clearTimeout(this.deadlineTimer);
    // Like client-go's Run: a lost term ends the election; the process restarts to stand again.
    this.stopper.abort();
    this.leaderSignal.abort();
    this.log.warn({ lease: `${this.opts.namespace}/${this.opts.name}`, identity: this.identity, why }, 'stopped leading');
    this.callbacks.onStoppedLeading?.();
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    try {
      const now = new Date();
      const current = await this.getLease();
      if (!current) return await this.createLease(now);
      const spec = current.spec ?? {};
      this.observe(current);
      const holder = spec.holderIdentity ?? '';
      if (holder !== '' && holder !== this.identity && !this.observedExpired(spec)) return false;
      const next: LeaseSpec = {
        holderIdentity: this.identity,
        leaseDurationSeconds: Math.ceil(this.opts.leaseDurationMs / 1000),
        acquireTime: holder === this.identity && spec.acquireTime ? spec.acquireTime : microTime(now),
        renewTime: microTime(now),
        leaseTransitions: holder === this.identity ? (spec.leaseTransitions ?? 0) : (spec.leaseTransitions ?? 0) + 1,
      };
      const updated = await this.putLease({ ...current, spec: next });
      this.observe(updated);
      return true;
    } catch (err) {
      if (!isConflict(err) && !isAlreadyExists(err)) {
        this.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'leader election request failed');
      }
      return false;
    }
  }

  /** The holder's record unchanged for a whole lease duration, by our clock. */
  private observedExpired(spec: LeaseSpec): boolean {
    const durationMs = (spec.leaseDurationSeconds ?? Math.ceil(this.opts.leaseDurationMs / 1000)) * 1000;
    return this.observed !== undefined && performance.now() - this.observed.at >= durationMs;
  }

  private observe(lease: Lease): void {
    const s = lease.spec ?? {};
    const record = JSON.stringify([s.holderIdentity, s.renewTime, s.acquireTime, s.leaseDurationSeconds, s.leaseTransitions]);
    if (this.observed?.record !== record) this.observed = { record, at: performance.now() };
    this.observedLease = lease;
    if (s.holderIdentity && s.holderIdentity !== this.identity) this.callbacks.onNewLeader?.(s.holderIdentity);
  }

  private async getLease(): Promise<Lease | undefined> {
    const { namespace, name } = this.opts;
    try {
      const lease = await this.transport.call('get', `GET Lease ${namespace}/${name}`, () =>
        this.transport.coordination.readNamespacedLease({ namespace, name }),
      );
      return toPlain<Lease>(lease);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  private async createLease(now: Date): Promise<boolean> {
    const { namespace, name } = this.opts;
    const body: Lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name, namespace },
      spec: {
        holderIdentity: this.identity,
        leaseDurationSeconds: Math.ceil(this.opts.leaseDurationMs / 1000),
        acquireTime: microTime(now),
        renewTime: microTime(now),
        leaseTransitions: 0,
      },
    };
    const created = await this.transport.call('create', `create Lease ${namespace}/${name}`, () =>
      this.transport.coordination.createNamespacedLease({ namespace, body: asModel<V1Lease>(body) }),
    );
    this.observe(toPlain<Lease>(created));
    return true;
  }

  /**
   * Lease times are MicroTime strings with 6 fractional digits. They survive the generated call
   * unchanged: ObjectSerializer has no model for V1MicroTime, so it passes the strings through in
   * both directions (pinned by a test).
   */
  private async putLease(lease: Lease): Promise<Lease> {
    const { namespace, name } = this.opts;
    const body = asModel<V1Lease>({ ...lease, apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' });
    const updated = await this.transport.call('update', `update Lease ${namespace}/${name}`, () =>
      this.transport.coordination.replaceNamespacedLease({ namespace, name, body }),
    );
    return toPlain<Lease>(updated);
  }

  /** Clears the holder (duration 1 s) so a standby takes over without waiting out the lease. */
  private async release(): Promise<void> {
    const lease = this.observedLease;
    if (!lease || lease.spec?.holderIdentity !== this.identity) return;
    const now = microTime();
    try {
      await this.putLease({
        ...lease,
        spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: now, acquireTime: now },
      });
      this.log.info({ lease: `${this.opts.namespace}/${this.opts.name}` }, 'released lease');
    } catch (err) {
      this.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'could not release lease');
    }
  }
}
