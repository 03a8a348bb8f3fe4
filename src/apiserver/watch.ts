/**
 * Watch streams: chunked NDJSON (or length-prefixed protobuf frames) over a long-lived response. One storage subscription feeds
 * every watcher; each change is serialised once per event type and output form, into one
 * Buffer every watcher shares. Changes committed during one event-loop turn are queued and
 * written on `setImmediate`, one write per watcher holding all of its events in order: every
 * socket write is its own TLS record and syscall, so under load this divides the cost of
 * fan-out by the batch size. Anything else written to a stream (bookmarks, the end) first
 * flushes the queue, so a stream's order is exactly the order of commits. Slow watchers are cut
 * off at a high-water mark rather than buffered without bound (the real server drops watchers
 * whose buffer is full; clients re-watch from their last resourceVersion).
 */
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { ApiError, ExpiredError } from '../kube/errors.js';
import { requireStorageResourceVersion } from './query-params.js';
import type { ResourceStrategy } from './resources/strategy.js';
import type { Selection } from './selection.js';
import { selectionMatches } from './selection.js';
import type { Change, Storage } from './storage/storage.js';
import {
  bookmarkLine,
  ChangeSerializer,
  errorLine,
  eventTypeFor,
  formKey,
  objectEvent,
  watchContentType,
  type WatchForm,
} from './watch-events.js';

export interface WatchRequest {
  strategy: ResourceStrategy;
  /** Storage prefix of the resource. */
  resource: string;
  selection: Selection;
  resourceVersion?: string;
  sendInitialEvents?: boolean;
  allowBookmarks: boolean;
  /** Seconds until the server ends the watch (0: at once); undefined: a random 30–60 min. */
  timeoutSeconds?: number;
  form: WatchForm;
}

export interface WatchHubOptions {
  bookmarkIntervalMs?: number;
  /** Bytes a watcher may have queued (beyond its initial burst) before it is cut off. */
  highWaterBytes?: number;
  now?: () => Date;
  log: Logger;
}

interface Watcher {
  req: WatchRequest;
  res: ServerResponse;
  /** Highest resourceVersion this watcher has been brought up to. */
  lastRV: number;
  queueLimit: number;
  timer?: NodeJS.Timeout;
  closed: boolean;
}

const DEFAULT_BOOKMARK_MS = 60_000;
const DEFAULT_HIGH_WATER = 32 * 1024 * 1024;
/** A cut-off watcher that still cannot drain its queue is destroyed after this. */
const DRAIN_GRACE_MS = 30_000;

function parseWatchRV(raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '' || raw === '0') return undefined;
  requireStorageResourceVersion(raw);
  return Number(raw);
}

/** Real servers end watches after a random 30–60 min unless told otherwise. */
function defaultTimeoutSeconds(): number {
  return 1800 + Math.floor(Math.random() * 1800);
}

export class WatchHub {
  private readonly byResource = new Map<string, Set<Watcher>>();
  private readonly unsubscribe: () => void;
  private readonly bookmarkTimer: NodeJS.Timeout;
  private lastDeliveredRV: number;
  /** Committed changes not yet written to watchers (this event-loop turn's), in rv order. */
  private queued: Change[] = [];
  private flushScheduled = false;
  private readonly highWater: number;
  private readonly now: () => Date;
  private closed = false;

  constructor(
    private readonly storage: Storage,
    private readonly opts: WatchHubOptions,
  ) {
    this.lastDeliveredRV = storage.currentRV();
    this.highWater = opts.highWaterBytes ?? DEFAULT_HIGH_WATER;
    this.now = opts.now ?? (() => new Date());
    this.unsubscribe = storage.subscribe((change) => this.dispatch(change));
    this.bookmarkTimer = setInterval(() => this.sendBookmarks(), opts.bookmarkIntervalMs ?? DEFAULT_BOOKMARK_MS);
    this.bookmarkTimer.unref();
  }

  activeWatches(): number {
    let n = 0;
    for (const set of this.byResource.values()) n += set.size;
    return n;
  }

  /** Starts a watch on `res`. Throws (before any byte is written) only on bad parameters. */
  serve(res: ServerResponse, req: WatchRequest): void {
    if (this.closed) throw new ApiError(503, 'ServiceUnavailable', 'the server is shutting down');
    const since = parseWatchRV(req.resourceVersion);
    res.writeHead(200, { 'Content-Type': watchContentType(req.form), 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
    const w: Watcher = { req, res, lastRV: since ?? this.storage.currentRV(), queueLimit: this.highWater, closed: false };
    const initial = since === undefined ? req.sendInitialEvents !== false : req.sendInitialEvents === true;
    try {
      if (initial) this.writeInitialState(w);
      else if (since !== undefined) this.replay(w, since);
    } catch (err) {
      if (err instanceof ApiError && err.code === 410) {
        res.end(errorLine(err.toStatus(), req.form));
        return;
      }
      throw err;
    }
    if (initial && req.sendInitialEvents === true && req.allowBookmarks) {
      res.write(bookmarkLine(req.strategy, w.lastRV, req.form, true));
    }
    w.queueLimit = res.writableLength + this.highWater;
    this.register(w);
  }

  private writeInitialState(w: Watcher): void {
    const { strategy, selection, form } = w.req;
    const now = this.now();
    const rv = this.storage.currentRV();
    for (const obj of this.storage.list(w.req.resource, selection.namespace)) {
      if (!selectionMatches(selection, obj, strategy)) continue;
      w.res.write(objectEvent('ADDED', strategy, obj, form, now));
    }
    w.lastRV = Math.max(w.lastRV, rv);
  }

  /** Replays committed changes after `since` (throws ExpiredError when they are gone). */
  private replay(w: Watcher, since: number): void {
    if (since > this.storage.currentRV()) {
      // Only a client that outlived the server's data (memory storage restarted) holds a
      // resourceVersion from the future; Expired makes every informer re-list.
      throw new ExpiredError(since, this.storage.currentRV());
    }
    const now = this.now();
    let changes: Change[];
    try {
      changes = this.storage.changesSince(since, w.req.resource);
    } catch (err) {
      if (err instanceof ExpiredError && w.req.strategy.noWatchCache === true) {
        throw new ApiError(410, 'Expired', 'The resourceVersion for the provided watch is too old.');
      }
      throw err;
    }
    const serializers = changes.map((change) => new ChangeSerializer(w.req.strategy, change, now));
    this.deliver(w, changes, serializers, new Map());
    w.lastRV = Math.max(w.lastRV, since);
  }

  private register(w: Watcher): void {
    let set = this.byResource.get(w.req.resource);
    if (!set) {
      set = new Set();
      this.byResource.set(w.req.resource, set);
    }
    set.add(w);
    const timeout = w.req.timeoutSeconds ?? defaultTimeoutSeconds();
    w.timer = setTimeout(() => this.finish(w, true), timeout * 1000);
    w.res.on('close', () => this.forget(w));
  }

  private forget(w: Watcher): void {
    w.closed = true;
    if (w.timer) clearTimeout(w.timer);
    this.byResource.get(w.req.resource)?.delete(w);
  }

  /** Ends a watch cleanly (a final bookmark first when the client wants them). */
  private finish(w: Watcher, withBookmark: boolean): void {
    if (w.closed) return;
    this.flushQueued();
    if (w.closed) return; // the flush cut it off
    if (withBookmark && w.req.allowBookmarks) w.res.write(bookmarkLine(w.req.strategy, this.bookmarkRV(w), w.req.form));
    this.forget(w);
    w.res.end();
  }

  private bookmarkRV(w: Watcher): number {
    return Math.max(w.lastRV, this.lastDeliveredRV);
  }

  private dispatch(change: Change): void {
    this.lastDeliveredRV = Math.max(this.lastDeliveredRV, change.rv);
    const watchers = this.byResource.get(change.key.resource);
    if (!watchers || watchers.size === 0) return;
    this.queued.push(change);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => {
        this.flushScheduled = false;
        this.flushQueued();
      });
    }
  }

  /** Writes every queued change to its resource's watchers, one write per watcher. */
  private flushQueued(): void {
    if (this.queued.length === 0) return;
    const changes = this.queued;
    this.queued = [];
    const now = this.now();
    for (const [resource, ofResource] of groupByResource(changes)) {
      const watchers = this.byResource.get(resource);
      if (!watchers || watchers.size === 0) continue;
      const strategy = watchers.values().next().value!.req.strategy;
      const serializers = ofResource.map((change) => new ChangeSerializer(strategy, change, now));
      const shared = new Map<string, Buffer>();
      for (const w of watchers) this.deliver(w, ofResource, serializers, shared);
    }
  }

  /**
   * Writes the events `changes` mean for `w` (those after its lastRV that its selection sees)
   * as one chunk. `shared` memoises, per form, the chunk of a watcher that sees every change
   * as its own event type: the common case, built once however many such watchers there are.
   */
  private deliver(w: Watcher, changes: Change[], serializers: ChangeSerializer[], shared: Map<string, Buffer>): void {
    if (w.closed) return;
    const lines: Buffer[] = [];
    let sameAsAll = true;
    for (let i = 0; i < changes.length; i++) {
      const change = changes[i];
      const type = change.rv > w.lastRV ? eventTypeFor(change, w.req.selection, w.req.strategy) : undefined;
      if (change.rv > w.lastRV) w.lastRV = change.rv;
      if (type !== change.type) sameAsAll = false;
      if (type !== undefined) lines.push(serializers[i].line(type, w.req.form));
    }
    if (lines.length === 0) return;
    w.res.write(lines.length === 1 ? lines[0] : this.joinLines(lines, sameAsAll ? shared : undefined, formKey(w.req.form)));
    if (w.res.writableLength > w.queueLimit) this.cutOff(w);
  }

  private joinLines(lines: Buffer[], shared: Map<string, Buffer> | undefined, key: string): Buffer {
    let chunk = shared?.get(key);
    if (chunk === undefined) {
      chunk = Buffer.concat(lines);
      shared?.set(key, chunk);
    }
    return chunk;
  }

  /** A watcher that cannot keep up: stop feeding it, end the stream, destroy if it never drains. */
  private cutOff(w: Watcher): void {
    this.opts.log.warn({ resource: w.req.resource, queued: w.res.writableLength }, 'closing a watch that is not keeping up');
    this.finish(w, false);
    const kill = setTimeout(() => w.res.destroy(), DRAIN_GRACE_MS);
    kill.unref();
    w.res.once('finish', () => clearTimeout(kill));
  }

  private sendBookmarks(): void {
    this.flushQueued();
    for (const set of this.byResource.values()) {
      for (const w of set) {
        if (w.req.allowBookmarks) w.res.write(bookmarkLine(w.req.strategy, this.bookmarkRV(w), w.req.form));
      }
    }
  }

  /** Ends every watch (server shutdown). */
  close(): void {
    this.closed = true;
    clearInterval(this.bookmarkTimer);
    this.unsubscribe();
    this.flushQueued();
    for (const set of this.byResource.values()) for (const w of [...set]) this.finish(w, false);
    this.byResource.clear();
  }
}

/** Changes grouped by resource, each group in the order given. */
function groupByResource(changes: Change[]): Map<string, Change[]> {
  const groups = new Map<string, Change[]>();
  for (const change of changes) {
    const group = groups.get(change.key.resource);
    if (group) group.push(change);
    else groups.set(change.key.resource, [change]);
  }
  return groups;
}
