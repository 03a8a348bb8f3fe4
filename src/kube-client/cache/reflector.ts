/**
 * Keeps a MergedStore in step with one resource: list (paged, through client-node's generated
 * list call for the collection, list-calls.ts), then watch (client-node's `Watch`) from
 * the list's resourceVersion with bookmarks; re-list on 410 Expired; reconnect with backoff on
 * any other error; reconnect when nothing (not even a bookmark) arrived for `inactivityTimeoutMs`. Never
 * gives up until stopped. (client-node's ListWatch stops for good on the first non-410 error and
 * has no inactivity timeout.)
 */
import { Watch } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { KubeObject, Status } from '@pv-controller/kube/types.js';
import { statusOf } from '@pv-controller/kube/errors.js';
import { listAllPages, listCallFor, type ListCall } from '../list-calls.js';
import type { RestTransport } from '../transport.js';
import { Backoff, delay } from '../../backoff.js';
import type { MergedStore } from './merged-store.js';
import { rvNumber } from './resource-version.js';

export interface ReflectorOptions<T extends KubeObject> {
  /** Collection path the watch follows, e.g. /api/v1/persistentvolumes. */
  path: string;
  /** Lists one page; default: the generated list call for `path` (list-calls.ts). */
  list?: ListCall<T>;
  /** Kind name, for stats (the logger should already carry it). */
  kind: string;
  store: MergedStore<T>;
  transport: RestTransport;
  log: Logger;
  /** No event or bookmark for this long ⇒ reconnect (default 130 s; servers bookmark each ~60 s). */
  inactivityTimeoutMs?: number;
  /** Page size of the list (default 500). */
  pageSize?: number;
  backoff?: Backoff;
}

/** Reconnect waits: client-go's reflector's 800 ms doubling to 30 s, plus up to 20%. */
const RECONNECT_BACKOFF = { initialMs: 800, maxMs: 30_000, jitter: 0.2 };

type WatchOutcome = 'closed' | 'expired' | 'error' | 'inactive' | 'stopped';

export class Reflector<T extends KubeObject> {
  private readonly stopper = new AbortController();
  private readonly backoff: Backoff;
  private readonly watcher: Watch;
  private readonly list: ListCall<T>;
  private lastRv = '';
  private lastPrune = 0;
  private running: Promise<void> | undefined;
  /** Counters, for stats and tests. */
  readonly counts = { lists: 0, watches: 0, expired: 0, errors: 0, inactive: 0 };

  constructor(private readonly opts: ReflectorOptions<T>) {
    this.backoff = opts.backoff ?? new Backoff(RECONNECT_BACKOFF);
    this.watcher = new Watch(opts.transport.kubeConfig);
    this.list = opts.list ?? listCallFor<T>(opts.transport, opts.path);
  }

  start(): void {
    this.running ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopper.abort();
    await this.running;
  }

  get kind(): string {
    return this.opts.kind;
  }

  hasSynced(): boolean {
    return this.opts.store.hasSynced();
  }

  lastSyncResourceVersion(): string {
    return this.lastRv;
  }

  private async run(): Promise<void> {
    const signal = this.stopper.signal;
    let needList = true;
    while (!signal.aborted) {
      if (needList) {
        try {
          await this.listAll();
          needList = false;
        } catch (err) {
          this.counts.errors += 1;
          this.opts.log.warn({ err: errText(err) }, 'list failed; retrying');
          await delay(this.backoff.next(), signal);
          continue;
        }
      }
      const openedAt = performance.now();
      const outcome = await this.watchOnce();
      const quickClose = outcome === 'closed' && performance.now() - openedAt < 1000;
      if (outcome === 'expired') {
        this.counts.expired += 1;
        this.opts.log.info({ rv: this.lastRv }, 'watch expired; re-listing');
        needList = true;
        await delay(this.backoff.next(), signal);
      } else if (outcome === 'error' || outcome === 'inactive' || quickClose) {
        await delay(this.backoff.next(), signal);
      }
    }
  }

  private async listAll(): Promise<void> {
    this.counts.lists += 1;
    const { items, resourceVersion: rv } = await listAllPages(this.list, this.opts.pageSize ?? 500);
    this.opts.store.replaceAll(items, rv);
    this.lastRv = rv ?? '';
    this.opts.log.debug({ count: items.length, rv }, 'listed');
  }

  /** One watch connection, from open to close; resolves with why it ended. */
  private watchOnce(): Promise<WatchOutcome> {
    const signal = this.stopper.signal;
    if (signal.aborted) return Promise.resolve('stopped');
    this.counts.watches += 1;
    const inactivityMs = this.opts.inactivityTimeoutMs ?? 130_000;
    return new Promise<WatchOutcome>((resolve) => {
      let finished = false;
      let abortWatch: AbortController | undefined;
      let timer: NodeJS.Timeout | undefined;
      const finish = (outcome: WatchOutcome): void => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        signal.removeEventListener('abort', onStop);
        abortWatch?.abort();
        resolve(outcome);
      };
      const onStop = (): void => finish('stopped');
      const arm = (): void => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          this.counts.inactive += 1;
          this.opts.log.info({ ms: inactivityMs }, 'watch silent; reconnecting');
          finish('inactive');
        }, inactivityMs);
      };
      signal.addEventListener('abort', onStop, { once: true });
      arm();
      const timeoutSeconds = 300 + Math.floor(Math.random() * 300);
      const query = { allowWatchBookmarks: true, resourceVersion: this.lastRv, timeoutSeconds };
      const onEvent = (type: string, obj: unknown): void => {
        if (finished) return;
        arm();
        const outcome = this.apply(type, obj);
        if (outcome) finish(outcome);
      };
      const onDone = (err: unknown): void => {
        if (finished) return;
        if (!err) return finish('closed');
        if (statusOf(err).code === 410) return finish('expired');
        this.counts.errors += 1;
        this.opts.log.warn({ err: errText(err) }, 'watch failed; reconnecting');
        finish('error');
      };
      this.watcher.watch(this.opts.path, query, onEvent, onDone).then(
        (ctrl) => {
          abortWatch = ctrl;
          if (finished) ctrl.abort();
        },
        (err: unknown) => onDone(err ?? new Error('watch failed')),
      );
    });
  }

  /** Applies one watch event; returns an outcome when the event ends the watch. */
  private apply(type: string, raw: unknown): WatchOutcome | undefined {
    const obj = raw as T;
    switch (type) {
      case 'ADDED':
      case 'MODIFIED':
        this.opts.store.applyInformerUpsert(obj);
        break;
      case 'DELETED':
        this.opts.store.applyInformerDelete(obj);
        break;
      case 'BOOKMARK':
        break;
      case 'ERROR': {
        const st = raw as Partial<Status>;
        if (st.code === 410 || st.reason === 'Expired' || st.reason === 'Gone') return 'expired';
        this.opts.log.warn({ status: st.message }, 'watch error event');
        return 'error';
      }
      default:
        return undefined;
    }
    const rv = obj?.metadata?.resourceVersion;
    if (rv && rvNumber(rv) >= rvNumber(this.lastRv)) this.lastRv = rv;
    this.backoff.reset();
    const now = performance.now();
    if (now - this.lastPrune > 10_000) {
      this.lastPrune = now;
      this.opts.store.pruneTombstones(rvNumber(this.lastRv));
    }
    return undefined;
  }
}

function errText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
