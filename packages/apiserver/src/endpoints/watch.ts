/**
 * Watch streams: chunked NDJSON (or length-prefixed protobuf frames) over a long-lived response. One storage subscription feeds
 * every watcher; each change is serialised once per event type and output form, into one
 * Buffer every watcher shares. Changes committed during one event-loop turn are queued and
 * written on `setImmediate`, one write per watcher holding all of its events in order: every
 * socket write is its own TLS record and syscall, so under load this divides the cost of
 * fan-out by the batch size. Anything else written to a stream (bookmarks, the end) first
 * flushes the queue, so a stream's order is exactly the order of commits.
 *
 * What a watcher is owed beyond what it has read is never buffered without bound: at most a window
 * of bytes (`windowBytes`) is queued on its response. The initial events (a snapshot of the list
 * taken when the watch starts) and any replay are written a window at a time as the client reads
 * ("catching up"); a live watcher whose queue reaches the window stops taking live deliveries and
 * catches up the same way from the replay history once it drains. A watcher is closed when it
 * falls out of that history (ERROR 410, as a too-old resourceVersion) or makes no progress for
 * `stallMs` while something is waiting for it (the stream ends; clients re-watch, as they do when
 * kube-apiserver's cacher terminates a watcher that cannot keep up).
 */
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { ApiError, ExpiredError } from '@pv-controller/kube/errors.js';
import { requireStorageResourceVersion } from '../api/query-params.js';
import type { KubeObject } from '@pv-controller/kube/types.js';
import type { ResourceStrategy } from '../resources/strategy.js';
import type { Selection } from '../registry/selection.js';
import { selectionMatches } from '../registry/selection.js';
import type { Change, Storage } from '../storage/storage.js';
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

interface WatchRequest {
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

interface WatchHubOptions {
  bookmarkIntervalMs?: number;
  /** Bytes a watcher may have queued before the rest waits for it to read (default 256 KiB). */
  windowBytes?: number;
  /** How long a watcher with something waiting may make no progress before it is closed (default 30 s). */
  stallMs?: number;
  now?: () => Date;
  log: Logger;
}

interface Watcher {
  req: WatchRequest;
  res: ServerResponse;
  /** Highest resourceVersion this watcher has been brought up to. */
  lastRV: number;
  /** The initial objects still to send (the list when the watch began), and the next one's index. */
  initial?: { objects: KubeObject[]; next: number; rv: number; now: Date };
  /** Set while it is sent what it missed at the pace it reads (live deliveries skip it). */
  catchingUp: boolean;
  /** Set while a full window waits for the client to read. */
  stall?: NodeJS.Timeout;
  timer?: NodeJS.Timeout;
  closed: boolean;
}

const DEFAULT_BOOKMARK_MS = 60_000;
const DEFAULT_WINDOW = 256 * 1024;
/** Above the socket's own high-water mark, so a full window always ends in a 'drain'. */
const MIN_WINDOW = 64 * 1024;
const DEFAULT_STALL_MS = 30_000;
/** Changes written per step while catching up (the window is checked between steps). */
const CATCH_UP_STEP = 256;
/** A closed watcher that still cannot drain what was queued is destroyed after this. */
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

/** The 410 a replay from `since` gets when the history no longer reaches back that far. */
function replayError(err: unknown, strategy: ResourceStrategy): unknown {
  if (err instanceof ExpiredError && strategy.noWatchCache === true) {
    return new ApiError(410, 'Expired', 'The resourceVersion for the provided watch is too old.');
  }
  return err;
}

export class WatchHub {
  private readonly byResource = new Map<string, Set<Watcher>>();
  private readonly unsubscribe: () => void;
  private readonly bookmarkTimer: NodeJS.Timeout;
  private lastDeliveredRV: number;
  /** Committed changes not yet written to watchers (this event-loop turn's), in rv order. */
  private queued: Change[] = [];
  private flushScheduled = false;
  private readonly window: number;
  private readonly stallMs: number;
  private readonly now: () => Date;
  private closed = false;

  constructor(
    private readonly storage: Storage,
    private readonly opts: WatchHubOptions,
  ) {
    this.lastDeliveredRV = storage.currentRV();
    this.window = Math.max(MIN_WINDOW, opts.windowBytes ?? DEFAULT_WINDOW);
    this.stallMs = opts.stallMs ?? DEFAULT_STALL_MS;
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
    if (since !== undefined && since > this.storage.currentRV()) {
      // Only a client that outlived the server's data (memory storage restarted) holds a
      // resourceVersion from the future; Expired makes every informer re-list.
      return this.refuse(res, req, new ExpiredError(since, this.storage.currentRV()));
    }
    const rv = this.storage.currentRV();
    const w: Watcher = { req, res, lastRV: since ?? rv, catchingUp: true, closed: false };
    const initial = since === undefined ? req.sendInitialEvents !== false : req.sendInitialEvents === true;
    if (initial) {
      w.initial = { objects: this.storage.list(req.resource, req.selection.namespace), next: 0, rv, now: this.now() };
      w.lastRV = Math.max(w.lastRV, rv);
    } else if (since === undefined) {
      w.catchingUp = false;
    } else if (since < this.storage.oldestRetainedRV()) {
      return this.refuse(res, req, replayError(new ExpiredError(since, this.storage.oldestRetainedRV()), req.strategy));
    }
    this.writeHead(res, req);
    this.register(w);
    this.pump(w);
  }

  private writeHead(res: ServerResponse, req: WatchRequest): void {
    res.writeHead(200, { 'Content-Type': watchContentType(req.form), 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
  }

  /** A watch that cannot start: the stream opens with one ERROR event and ends. */
  private refuse(res: ServerResponse, req: WatchRequest, err: unknown): void {
    if (!(err instanceof ApiError)) throw err;
    this.writeHead(res, req);
    res.end(errorLine(err.toStatus(), req.form));
  }

  /** Writes what a catching-up watcher is owed until its window is full (then waits for it to drain) or it is caught up. */
  private pump(w: Watcher): void {
    while (!w.closed && w.catchingUp) {
      if (w.res.writableLength >= this.window) return this.awaitDrain(w);
      if (w.initial !== undefined) this.sendInitial(w, w.initial);
      else this.sendMissed(w);
    }
  }

  /** The initial objects that fit in the window, then (all sent) the initial-events-end bookmark. */
  private sendInitial(w: Watcher, init: NonNullable<Watcher['initial']>): void {
    const { strategy, selection, form } = w.req;
    while (init.next < init.objects.length && w.res.writableLength < this.window) {
      const obj = init.objects[init.next++];
      if (selectionMatches(selection, obj, strategy)) w.res.write(objectEvent('ADDED', strategy, obj, form, init.now));
    }
    if (init.next < init.objects.length) return;
    w.initial = undefined;
    if (w.req.sendInitialEvents === true && w.req.allowBookmarks) w.res.write(bookmarkLine(strategy, init.rv, form, true));
  }

  /** The next step of committed changes the watcher missed; none left: it takes live deliveries again. */
  private sendMissed(w: Watcher): void {
    let changes: Change[];
    try {
      changes = this.storage.changesSince(w.lastRV, w.req.resource);
    } catch (err) {
      const error = replayError(err, w.req.strategy);
      if (!(error instanceof ApiError)) throw error;
      this.opts.log.info({ resource: w.req.resource, rv: w.lastRV }, 'closing a watch that fell behind the replay history');
      this.forget(w);
      w.res.end(errorLine(error.toStatus(), w.req.form));
      return;
    }
    if (changes.length === 0) {
      w.catchingUp = false;
      return;
    }
    const step = changes.length > CATCH_UP_STEP ? changes.slice(0, CATCH_UP_STEP) : changes;
    const now = this.now();
    this.write(w, step, step.map((change) => new ChangeSerializer(w.req.strategy, change, now)), new Map());
  }

  /** Resumes a full watcher once it has read its queue; closes it if it reads nothing for stallMs. */
  private awaitDrain(w: Watcher): void {
    if (w.stall !== undefined) return;
    w.stall = setTimeout(() => this.cutOff(w), this.stallMs);
    w.res.once('drain', () => {
      clearTimeout(w.stall);
      w.stall = undefined;
      this.pump(w);
    });
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
    if (w.stall) clearTimeout(w.stall);
    w.initial = undefined;
    this.byResource.get(w.req.resource)?.delete(w);
  }

  /** Ends a watch cleanly (a final bookmark first when the client wants them). */
  private finish(w: Watcher, withBookmark: boolean): void {
    if (w.closed) return;
    this.flushQueued();
    if (w.closed) return; // the flush closed it
    if (withBookmark && w.req.allowBookmarks) w.res.write(bookmarkLine(w.req.strategy, this.bookmarkRV(w), w.req.form));
    this.forget(w);
    w.res.end();
  }

  /** What a bookmark may promise: everything up to it was sent (a catching-up watcher has not had the live changes). */
  private bookmarkRV(w: Watcher): number {
    return w.catchingUp ? w.lastRV : Math.max(w.lastRV, this.lastDeliveredRV);
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

  /** Writes every queued change to its resource's live watchers, one write per watcher. */
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

  /** A live delivery; a watcher whose window is full catches up from the history instead, as it reads. */
  private deliver(w: Watcher, changes: Change[], serializers: ChangeSerializer[], shared: Map<string, Buffer>): void {
    if (w.closed || w.catchingUp) return;
    if (w.res.writableLength >= this.window) {
      w.catchingUp = true;
      this.awaitDrain(w);
      return;
    }
    this.write(w, changes, serializers, shared);
  }

  /**
   * Writes the events `changes` mean for `w` (those after its lastRV that its selection sees)
   * as one chunk. `shared` memoises, per form, the chunk of a watcher that sees every change
   * as its own event type: the common case, built once however many such watchers there are.
   */
  private write(w: Watcher, changes: Change[], serializers: ChangeSerializer[], shared: Map<string, Buffer>): void {
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
  }

  private joinLines(lines: Buffer[], shared: Map<string, Buffer> | undefined, key: string): Buffer {
    let chunk = shared?.get(key);
    if (chunk === undefined) {
      chunk = Buffer.concat(lines);
      shared?.set(key, chunk);
    }
    return chunk;
  }

  /** A watcher that read nothing for stallMs: end the stream, destroy it if it never drains. */
  private cutOff(w: Watcher): void {
    this.opts.log.warn({ resource: w.req.resource, queued: w.res.writableLength }, 'closing a watch that is not keeping up');
    this.forget(w);
    w.res.end();
    const kill = setTimeout(() => w.res.destroy(), DRAIN_GRACE_MS);
    kill.unref();
    w.res.once('finish', () => clearTimeout(kill));
  }

  private sendBookmarks(): void {
    this.flushQueued();
    for (const set of this.byResource.values()) {
      for (const w of set) {
        if (w.req.allowBookmarks && !w.catchingUp) w.res.write(bookmarkLine(w.req.strategy, this.bookmarkRV(w), w.req.form));
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
