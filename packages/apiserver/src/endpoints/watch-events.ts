/**
 * How one change becomes one watch event for one watcher (selector transitions), and the
 * serialised events (JSON lines, or length-prefixed protobuf WatchEvent frames), built once per
 * change and output form and shared by every watcher.
 */
import type { KubeObject, Status } from '@pv-controller/kube/types.js';
import { emptyObjectOf } from '../registry/apply/empty-object.js';
import { memoizedJson } from './json-memo.js';
import { encodeObject, PROTOBUF_WATCH_MEDIA_TYPE, watchFrame } from '../protobuf/envelope.js';
import { apiVersionOf } from '../decode/object-decode.js';
import { partialObjectOf } from './partial-metadata.js';
import type { ResourceStrategy } from '../resources/strategy.js';
import { selectionMatches, type Selection } from '../registry/selection.js';
import type { Change } from '../storage/storage.js';
import { buildTable, type TableForm } from './table.js';

type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/**
 * Output form of a watch: plain objects, one-row Tables, protobuf, or PartialObjectMetadata.
 * A watch asking for PartialObjectMetadataList gets no events, as kube-apiserver drops every
 * event whose object it cannot turn into a list.
 */
export type WatchForm =
  | { kind: 'json' } | ({ kind: 'table' } & TableForm) | { kind: 'protobuf' } | { kind: 'partial'; version: string; list: boolean };

export function formKey(form: WatchForm): string {
  if (form.kind === 'partial') return `partial/${form.version}/${form.list}`;
  return form.kind === 'table' ? `table/${form.version}/${form.includeObject}` : form.kind;
}

export function watchContentType(form: WatchForm): string {
  return form.kind === 'protobuf' ? PROTOBUF_WATCH_MEDIA_TYPE : 'application/json';
}

/** One event of any object (bookmarks, errors) in the watcher's form. */
function eventIn(form: WatchForm, type: string, obj: object): string | Buffer {
  return form.kind === 'protobuf' ? watchFrame(type, encodeObject(obj as Record<string, unknown>)) : eventLine(type, JSON.stringify(obj));
}

/**
 * The event a watcher with `sel` sees for `change`: objects entering the selection are ADDED,
 * objects leaving it are DELETED (with their last state that matched: see `eventObject`), like the
 * watch cache does.
 */
export function eventTypeFor(
  change: Pick<Change, 'type' | 'object' | 'prev'>,
  sel: Selection,
  s: ResourceStrategy,
): EventType | undefined {
  const now = selectionMatches(sel, change.object, s);
  if (change.type === 'ADDED') return now ? 'ADDED' : undefined;
  if (change.type === 'DELETED') return now ? 'DELETED' : undefined;
  const was = change.prev ? selectionMatches(sel, change.prev, s) : now;
  if (was && now) return 'MODIFIED';
  if (now) return 'ADDED';
  if (was) return 'DELETED';
  return undefined;
}

/**
 * The object an event carries: the change's object, except for a DELETED that an update out of
 * the selection caused, which carries the previous state at the change's resourceVersion (what
 * the watcher last matched, as kube-apiserver's cacheWatcher sends it).
 */
function eventObject(change: Change, type: EventType): KubeObject {
  if (type !== 'DELETED' || change.type !== 'MODIFIED' || !change.prev) return change.object;
  return { ...change.prev, metadata: { ...change.prev.metadata, resourceVersion: change.object.metadata.resourceVersion } };
}

/** An event line; none for an event whose object the form drops (an empty object part). */
function eventLine(type: string, objectJson: string): string {
  return objectJson === '' ? '' : `{"type":"${type}","object":${objectJson}}\n`;
}

/** The object part of a JSON, Table or partial-metadata event ('' when the form drops it). */
function objectJsonFor(s: ResourceStrategy, obj: KubeObject, form: WatchForm, now: Date): string {
  if (form.kind === 'partial') return form.list ? '' : JSON.stringify(partialObjectOf(obj, form.version));
  if (form.kind !== 'table') return memoizedJson(obj);
  const table = buildTable(s, [obj], form, { resourceVersion: obj.metadata.resourceVersion }, now);
  return JSON.stringify(table);
}

/** A stored object's event in the watcher's form (the initial burst, not memoised). */
export function objectEvent(type: EventType, s: ResourceStrategy, obj: KubeObject, form: WatchForm, now: Date): string | Buffer {
  if (form.kind === 'protobuf') return watchFrame(type, encodeObject(obj as unknown as Record<string, unknown>));
  return eventLine(type, objectJsonFor(s, obj, form, now));
}

/** A bookmark's object: the kind's empty object with only a resourceVersion (and annotation), as kube-apiserver's newFunc gives. */
export function bookmarkLine(s: ResourceStrategy, rv: number, form: WatchForm, initialEventsEnd = false): string | Buffer {
  const metadata: Record<string, unknown> = { resourceVersion: String(rv) };
  if (initialEventsEnd) metadata.annotations = { 'k8s.io/initial-events-end': 'true' };
  if (form.kind === 'partial') {
    return form.list ? '' : eventLine('BOOKMARK', JSON.stringify({ kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${form.version}`, metadata }));
  }
  const empty = emptyObjectOf(s.info.group, s.info.kind);
  return eventIn(form, 'BOOKMARK', { kind: s.info.kind, apiVersion: apiVersionOf(s.info), ...empty, metadata });
}

export function errorLine(status: Status, form: WatchForm): string | Buffer {
  return eventIn(form, 'ERROR', status);
}

/**
 * Per-change memo of serialised event lines keyed by event type and form: with N watchers of
 * the same form the object is stringified and UTF-8 encoded once, and every watcher is handed
 * the same Buffer.
 */
export class ChangeSerializer {
  private readonly objectJson = new Map<string, string>();
  private encoded?: Buffer;
  private readonly lines = new Map<string, Buffer>();

  constructor(
    private readonly s: ResourceStrategy,
    private readonly change: Change,
    private readonly now: Date,
  ) {}

  line(type: EventType, form: WatchForm): Buffer {
    const key = formKey(form);
    const lineKey = `${type} ${key}`;
    let line = this.lines.get(lineKey);
    if (line === undefined && form.kind === 'protobuf') {
      const object = eventObject(this.change, type);
      const encoded =
        object === this.change.object
          ? (this.encoded ??= encodeObject(object as unknown as Record<string, unknown>))
          : encodeObject(object as unknown as Record<string, unknown>);
      line = watchFrame(type, encoded);
      this.lines.set(lineKey, line);
    } else if (line === undefined) {
      const object = eventObject(this.change, type);
      const jsonKey = object === this.change.object ? key : `${key} prev`;
      let json = this.objectJson.get(jsonKey);
      if (json === undefined) {
        json = objectJsonFor(this.s, object, form, this.now);
        this.objectJson.set(jsonKey, json);
      }
      line = Buffer.from(eventLine(type, json));
      this.lines.set(lineKey, line);
    }
    return line;
  }
}
