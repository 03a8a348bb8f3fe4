/**
 * DELETE semantics: preconditions, finalizers (set deletionTimestamp and wait for them), the
 * collection form, and namespace deletion taking its contents along.
 */
import { BadRequestError } from '../kube/errors.js';
import type { KubeObject, ObjectList } from '../kube/types.js';
import { apiVersionOf, preconditionFailed } from './object-decode.js';
import { isPlainObject } from './object-utils.js';
import type { Registry } from './registry.js';
import type { ResourceStrategy } from './resources/strategy.js';
import { selectionMatches, type Selection } from './selection.js';

export interface DeleteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
  propagationPolicy?: string;
}

interface PlannedDelete {
  /** What the response carries: the object as it was removed, or with deletionTimestamp set. */
  object: KubeObject;
  durable?: Promise<unknown>;
}

/** DeleteOptions from the body (kubectl sends `{"propagationPolicy":"Background"}`) and query. */
export function parseDeleteOptions(body: unknown, params: URLSearchParams): DeleteOptions {
  const opts: DeleteOptions = {};
  if (body !== undefined && !isPlainObject(body)) throw new BadRequestError('DeleteOptions must be an object');
  const b = body ?? {};
  if (isPlainObject(b.preconditions)) {
    const p = b.preconditions;
    opts.preconditions = {
      uid: typeof p.uid === 'string' ? p.uid : undefined,
      resourceVersion: typeof p.resourceVersion === 'string' ? p.resourceVersion : undefined,
    };
  }
  const dryRun = Array.isArray(b.dryRun) ? b.dryRun : params.getAll('dryRun');
  opts.dryRun = dryRun.includes('All');
  const policy = typeof b.propagationPolicy === 'string' ? b.propagationPolicy : params.get('propagationPolicy');
  if (policy) opts.propagationPolicy = policy;
  return opts;
}

function checkPreconditions(s: ResourceStrategy, obj: KubeObject, pre: DeleteOptions['preconditions']): void {
  if (!pre) return;
  const meta = obj.metadata;
  if (pre.uid && pre.uid !== meta.uid) {
    throw preconditionFailed(s.info, obj, `UID in precondition: ${pre.uid}, UID in object meta: ${meta.uid ?? ''}`);
  }
  if (pre.resourceVersion && pre.resourceVersion !== meta.resourceVersion) {
    throw preconditionFailed(
      s.info,
      obj,
      `ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion ?? ''}`,
    );
  }
}

/** The synchronous part of a delete: checks and the storage write. */
function planDelete(reg: Registry, s: ResourceStrategy, prev: KubeObject, opts: DeleteOptions): PlannedDelete {
  checkPreconditions(s, prev, opts.preconditions);
  const meta = prev.metadata;
  const key = reg.keyOf(s, meta.namespace ?? '', meta.name ?? '');
  if ((meta.finalizers ?? []).length > 0) {
    if (meta.deletionTimestamp !== undefined) return { object: prev };
    const next: KubeObject = {
      ...prev,
      metadata: { ...meta, deletionTimestamp: reg.timestamp(), deletionGracePeriodSeconds: 0 },
    };
    if (opts.dryRun) return { object: next };
    const { change, durable } = reg.storage.write({ type: 'update', key, object: next });
    return { object: change.object, durable };
  }
  if (opts.dryRun) return { object: prev };
  const { change, durable } = reg.storage.write({ type: 'delete', key });
  const contents = isNamespace(s) ? planNamespaceContentsDelete(reg, meta.name ?? '') : [];
  return { object: change.object, durable: Promise.all([durable, ...contents]) };
}

function isNamespace(s: ResourceStrategy): boolean {
  return s.info.group === '' && s.info.plural === 'namespaces';
}

/** Deleting a namespace deletes what is in it (finalizers still hold their objects back). */
function planNamespaceContentsDelete(reg: Registry, namespace: string): Promise<unknown>[] {
  const pending: Promise<unknown>[] = [];
  for (const s of reg.strategies) {
    if (!s.info.namespaced) continue;
    for (const obj of reg.storage.list(reg.keyOf(s, namespace, '').resource, namespace)) {
      const planned = planDelete(reg, s, obj, {});
      if (planned.durable) pending.push(planned.durable);
    }
  }
  return pending;
}

export async function deleteObject(
  reg: Registry,
  s: ResourceStrategy,
  prev: KubeObject,
  opts: DeleteOptions,
): Promise<KubeObject> {
  const planned = planDelete(reg, s, prev, opts);
  await planned.durable;
  return planned.object;
}

export async function deleteCollection(
  reg: Registry,
  s: ResourceStrategy,
  sel: Selection,
  opts: DeleteOptions,
): Promise<ObjectList> {
  const resource = reg.keyOf(s, '', '').resource;
  const victims = reg.storage.list(resource, sel.namespace).filter((o) => selectionMatches(sel, o, s));
  const planned = victims.map((obj) => planDelete(reg, s, obj, { dryRun: opts.dryRun }));
  await Promise.all(planned.map((p) => p.durable));
  return {
    kind: s.info.listKind,
    apiVersion: apiVersionOf(s.info),
    metadata: { resourceVersion: String(reg.storage.currentRV()) },
    items: planned.map((p) => p.object),
  };
}
