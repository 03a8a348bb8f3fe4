/**
 * SqliteStorage: the durable store, on better-sqlite3 in a data directory.
 *
 * SQLite is the durable log; reads never touch it. Opening loads current state into the
 * in-memory view and the newest `retainChanges` changes into the replay ring, and continues
 * resourceVersions after the highest one on disk. Writes are applied to the view at once and
 * committed by group commit: everything written during one event-loop turn (up to `maxBatch`
 * per transaction) goes into one transaction on the next `setImmediate`; only after that COMMIT
 * returned do the writes' `durable` promises resolve and subscribers hear of them.
 *
 * Durability: WAL journal with `synchronous=FULL`, so COMMIT returns only after the WAL is
 * fsynced: an acknowledged write survives kill -9 and power loss. The connection holds an
 * exclusive lock on the file for its whole life (`locking_mode=EXCLUSIVE`), so a second process
 * opening the same directory fails with StorageLockedError instead of forking the history.
 *
 * A failed COMMIT (disk full, I/O error) rolls the transaction back; BatchedStorage then undoes
 * every uncommitted write in the view and rejects their `durable` with StorageCommitError (500),
 * logged at error level. Later writes are attempted normally, so a transient fault heals.
 *
 * Compaction: once `compactEvery` changes fell out of the replay ring, rows at or below the
 * ring's floor are deleted (except rows still holding a current object's body or a retained
 * change's previous version) and the floor is recorded as `compacted_rv`, in its own
 * transaction; a failed compaction is logged and retried later, never fatal.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { KubeObject } from '@pv-controller/kube/types.js';
import { BatchedStorage, DEFAULT_RETAIN_CHANGES, type StorageOptions } from './batched-storage.js';
import { StorageLockedError } from './errors.js';
import { prepareStatements, readStoredState, SCHEMA, type StoredState, type Statements } from './sqlite-schema.js';
import type { Change, ObjectKey } from './storage.js';

/** Name of the database file inside the data directory. */
export const SQLITE_FILE = 'storage.sqlite';

export interface SqliteStorageOptions extends StorageOptions {
  /** How long opening waits for another holder of the database to let go (default 2000 ms). */
  lockTimeoutMs?: number;
  /**
   * Called for every object read back while opening; returns what the view and the replay
   * log hold instead (the API server uses it to repair objects an older version stored).
   */
  repairLoaded?: (key: ObjectKey, object: KubeObject) => KubeObject;
  /** Compact the on-disk log after this many changes left the replay ring (default retain/10). */
  compactEvery?: number;
}

/** Replayable history read back from disk, and the floor below which replay is refused. */
interface LoadedHistory {
  floorRV: number;
  changes: Change[];
  /** Parsed object by the rv of the change that produced it, to share with the view. */
  objectsByRV: Map<number, KubeObject>;
}

/** Turns a stored body back into an object (JSON.parse, then the optional repair). */
type ReadBody = (key: ObjectKey, body: string) => KubeObject;

function bodyReader(repair: SqliteStorageOptions['repairLoaded']): ReadBody {
  if (!repair) return (_key, body) => JSON.parse(body) as KubeObject;
  return (key, body) => repair(key, JSON.parse(body) as KubeObject);
}

function loadHistory(state: StoredState, readBody: ReadBody): LoadedHistory {
  const objectsByRV = new Map<number, KubeObject>();
  let changes: Change[] = [];
  let floorRV = state.changesAboveFloor > state.recent.length ? state.recent[0].rv - 1 : state.compactedRV;
  for (const row of state.recent) {
    const key = { resource: row.resource, namespace: row.namespace, name: row.name };
    const object = readBody(key, row.body);
    objectsByRV.set(row.rv, object);
    if (row.prev_rv === null) {
      changes.push({ rv: row.rv, type: row.type, key, object });
      continue;
    }
    const prev = objectsByRV.get(row.prev_rv) ?? (row.prev_body === null ? undefined : readBody(key, row.prev_body));
    if (prev === undefined) {
      // The previous version is gone (should not happen): replay can only start after this row.
      floorRV = row.rv;
      changes = [];
      continue;
    }
    changes.push({ rv: row.rv, type: row.type, key, object, prev });
  }
  return { floorRV, changes, objectsByRV };
}

function isBusy(err: unknown): boolean {
  return err instanceof Database.SqliteError && err.code.startsWith('SQLITE_BUSY');
}

function openDatabase(file: string, lockTimeoutMs: number): Database.Database {
  const db = new Database(file, { timeout: lockTimeoutMs });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    const mode = db.pragma('journal_mode = WAL', { simple: true });
    if (mode !== 'wal') throw new Error(`cannot switch ${file} to WAL mode (got ${String(mode)})`);
    db.pragma('synchronous = FULL');
    // The first write transaction takes the exclusive lock and keeps it until close.
    db.exec('BEGIN IMMEDIATE');
    db.exec(SCHEMA);
    db.exec('COMMIT');
    return db;
  } catch (err) {
    db.close();
    if (isBusy(err)) throw new StorageLockedError(file, err);
    throw err;
  }
}

export class SqliteStorage extends BatchedStorage {
  private readonly statements: Statements;
  private readonly commitTransaction: (changes: readonly Change[]) => void;
  private readonly compactEvery: number;
  private compactedRV: number;
  private compactions = 0;

  /** Opens (creating if needed) the store in `dir`; throws StorageLockedError if it is in use. */
  static open(dir: string, options: SqliteStorageOptions = {}): SqliteStorage {
    mkdirSync(dir, { recursive: true });
    const file = join(dir, SQLITE_FILE);
    const db = openDatabase(file, options.lockTimeoutMs ?? 2000);
    try {
      const retain = options.retainChanges ?? DEFAULT_RETAIN_CHANGES;
      return new SqliteStorage(db, file, readStoredState(db, retain), options);
    } catch (err) {
      db.close();
      throw err;
    }
  }

  private constructor(
    private readonly db: Database.Database,
    /** Path of the database file. */
    readonly file: string,
    state: StoredState,
    options: SqliteStorageOptions,
  ) {
    const readBody = bodyReader(options.repairLoaded);
    const history = loadHistory(state, readBody);
    super({ currentRV: state.maxRV, floorRV: history.floorRV }, options);
    const retain = options.retainChanges ?? DEFAULT_RETAIN_CHANGES;
    this.compactEvery = Math.max(1, options.compactEvery ?? Math.ceil(retain / 10));
    this.compactedRV = state.compactedRV;
    this.statements = prepareStatements(db);
    this.commitTransaction = db.transaction((changes: readonly Change[]) => this.insertChanges(changes));
    for (const change of history.changes) this.loadChange(change);
    for (const row of state.objects) {
      const key = { resource: row.resource, namespace: row.namespace, name: row.name };
      this.loadObject(key, history.objectsByRV.get(row.rv) ?? readBody(key, row.body));
    }
  }

  /** How many compactions of the on-disk log ran since opening. */
  compactionCount(): number {
    return this.compactions;
  }

  protected commit(changes: readonly Change[]): void {
    this.commitTransaction(changes);
    this.compactIfDue();
  }

  protected scheduleFlush(flush: () => void): void {
    setImmediate(flush);
  }

  protected release(): void {
    this.db.close();
  }

  private insertChanges(changes: readonly Change[]): void {
    const { insertChange, upsertObject, deleteObject } = this.statements;
    for (const change of changes) {
      const { resource, namespace, name } = change.key;
      const prevRV = change.prev === undefined ? null : Number(change.prev.metadata.resourceVersion);
      insertChange.run(change.rv, change.type, resource, namespace, name, JSON.stringify(change.object), prevRV);
      if (change.type === 'DELETED') deleteObject.run(resource, namespace, name);
      else upsertObject.run(resource, namespace, name, change.rv);
    }
  }

  private compactIfDue(): void {
    const floor = this.history.floorRV();
    if (floor - this.compactedRV < this.compactEvery) return;
    try {
      this.db.transaction(() => {
        this.statements.compact.run({ floor });
        this.statements.setMeta.run('compacted_rv', floor);
      })();
      this.compactedRV = floor;
      this.compactions++;
    } catch (err) {
      this.logger.error({ err, floor }, 'storage compaction failed; will retry after later commits');
    }
  }
}
