/**
 * The on-disk layout of SqliteStorage (kine's idea: the change log's integer primary key is the
 * resourceVersion) and the prepared statements that read and write it.
 *
 *  - `changes(rv, type, resource, namespace, name, body, prev_rv)`: one row per write; `body` is
 *    the object after the change (for DELETED its last state, stamped with the deletion's rv);
 *    `prev_rv` is the row holding the previous version (NULL for ADDED).
 *  - `objects(resource, namespace, name, rv)`: current state, pointing at the `changes` row that
 *    holds its body, so each write stores its JSON exactly once.
 *  - `meta(key, value)`: `compacted_rv`, the replay floor.
 *
 * Compaction deletes rows at or below the floor unless an object or a retained change's
 * `prev_rv` still points at them.
 */
import type Database from 'better-sqlite3';
import type { ChangeType } from './storage.js';

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS changes (
  rv        INTEGER PRIMARY KEY,
  type      TEXT    NOT NULL,
  resource  TEXT    NOT NULL,
  namespace TEXT    NOT NULL,
  name      TEXT    NOT NULL,
  body      TEXT    NOT NULL,
  prev_rv   INTEGER
);
CREATE TABLE IF NOT EXISTS objects (
  resource  TEXT    NOT NULL,
  namespace TEXT    NOT NULL,
  name      TEXT    NOT NULL,
  rv        INTEGER NOT NULL,
  PRIMARY KEY (resource, namespace, name)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (
  key   TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
`;

interface ChangeRow {
  rv: number;
  type: ChangeType;
  resource: string;
  namespace: string;
  name: string;
  body: string;
  prev_body: string | null;
  prev_rv: number | null;
}

interface ObjectRow {
  resource: string;
  namespace: string;
  name: string;
  rv: number;
  body: string;
}

export interface Statements {
  insertChange: Database.Statement<[number, ChangeType, string, string, string, string, number | null]>;
  upsertObject: Database.Statement<[string, string, string, number]>;
  deleteObject: Database.Statement<[string, string, string]>;
  compact: Database.Statement<{ floor: number }>;
  setMeta: Database.Statement<[string, number]>;
}

export function prepareStatements(db: Database.Database): Statements {
  return {
    insertChange: db.prepare(
      'INSERT INTO changes (rv, type, resource, namespace, name, body, prev_rv) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    upsertObject: db.prepare(
      'INSERT INTO objects (resource, namespace, name, rv) VALUES (?, ?, ?, ?) ' +
        'ON CONFLICT (resource, namespace, name) DO UPDATE SET rv = excluded.rv',
    ),
    deleteObject: db.prepare('DELETE FROM objects WHERE resource = ? AND namespace = ? AND name = ?'),
    compact: db.prepare(
      'DELETE FROM changes WHERE rv <= @floor ' +
        'AND rv NOT IN (SELECT rv FROM objects) ' +
        'AND rv NOT IN (SELECT prev_rv FROM changes WHERE rv > @floor AND prev_rv IS NOT NULL)',
    ),
    setMeta: db.prepare(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    ),
  };
}

/** What opening reads back: the replay floor, the highest rv, recent changes, current objects. */
export interface StoredState {
  compactedRV: number;
  maxRV: number;
  /** Changes with rv above the floor, newest `limit` of them, oldest first, with prev bodies. */
  recent: ChangeRow[];
  /** How many changes above the compaction floor exist (may exceed `recent.length`). */
  changesAboveFloor: number;
  /** Current objects ordered by resource, namespace, name. */
  objects: ObjectRow[];
}

export function readStoredState(db: Database.Database, limit: number): StoredState {
  const meta = db.prepare("SELECT value FROM meta WHERE key = 'compacted_rv'").get() as
    | { value: number }
    | undefined;
  const compactedRV = meta?.value ?? 0;
  const max = db.prepare('SELECT MAX(rv) AS rv FROM changes').get() as { rv: number | null };
  const above = db.prepare('SELECT COUNT(*) AS n FROM changes WHERE rv > ?').get(compactedRV) as {
    n: number;
  };
  const recent = db
    .prepare(
      'SELECT c.rv, c.type, c.resource, c.namespace, c.name, c.body, c.prev_rv, p.body AS prev_body ' +
        'FROM (SELECT * FROM changes WHERE rv > ? ORDER BY rv DESC LIMIT ?) AS c ' +
        'LEFT JOIN changes AS p ON p.rv = c.prev_rv ORDER BY c.rv',
    )
    .all(compactedRV, limit) as ChangeRow[];
  const objects = db
    .prepare(
      'SELECT o.resource, o.namespace, o.name, o.rv, c.body FROM objects AS o ' +
        'JOIN changes AS c ON c.rv = o.rv ORDER BY o.resource, o.namespace, o.name',
    )
    .all() as ObjectRow[];
  const stored = db.prepare('SELECT COUNT(*) AS n FROM objects').get() as { n: number };
  if (stored.n !== objects.length) {
    throw new Error(`storage is corrupt: ${stored.n - objects.length} object(s) lost the change row holding their body`);
  }
  return { compactedRV, maxRV: Math.max(max.rv ?? 0, compactedRV), recent, changesAboveFloor: above.n, objects };
}
