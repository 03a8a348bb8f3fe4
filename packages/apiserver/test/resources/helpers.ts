/** Shared fixtures for the strategy tests: run a strategy the way the registry does. */
import assert from 'node:assert/strict';
import type { KubeObject, StatusCause } from '@pv-controller/kube/types.js';
import { DecodeError } from '@pv-controller/apiserver/decode/typed-decoder.js';
import { decodeKindObject } from '@pv-controller/apiserver/decode/field-validation.js';
import { cannotBeHandled } from '@pv-controller/apiserver/decode/object-decode.js';
import type { AdmissionContext, ResourceStrategy } from '@pv-controller/apiserver/resources/strategy.js';

export const NOW = '2024-05-01T10:00:00Z';

export function emptyAdmission(objects: Record<string, KubeObject[]> = {}): AdmissionContext {
  return {
    list: (group, plural) => objects[`${group}/${plural}`] ?? [],
    get: (group, plural, _ns, name) => (objects[`${group}/${plural}`] ?? []).find((o) => o.metadata.name === name),
  };
}

/** The typed copy the registry hands a strategy (a decode error is the registry's 400). */
export function decoded(s: ResourceStrategy, body: KubeObject): KubeObject {
  try {
    return decodeKindObject(s.info, body, 'Ignore').object;
  } catch (err) {
    throw err instanceof DecodeError ? cannotBeHandled(s.info, err.message) : err;
  }
}

/** Create as the registry does: decode, defaults, admission/prepare, validate. */
export function create(s: ResourceStrategy, body: KubeObject, ctx = emptyAdmission()): { obj: KubeObject; causes: StatusCause[] } {
  const obj = decoded(s, body);
  obj.metadata.creationTimestamp ??= NOW;
  obj.metadata.uid ??= 'uid-1';
  s.defaults(obj);
  s.prepareForCreate(obj, ctx);
  return { obj, causes: s.validateCreate(obj) };
}

export function update(s: ResourceStrategy, next: KubeObject, prev: KubeObject): { obj: KubeObject; causes: StatusCause[] } {
  const obj = decoded(s, next);
  s.defaults(obj);
  s.prepareForUpdate(obj, prev);
  return { obj, causes: s.validateUpdate(obj, prev) };
}

export function statusUpdate(s: ResourceStrategy, next: KubeObject, prev: KubeObject, now = NOW): { obj: KubeObject; causes: StatusCause[] } {
  const obj = decoded(s, next);
  s.defaults(obj);
  s.prepareForStatusUpdate?.(obj, prev, now);
  return { obj, causes: s.validateStatusUpdate?.(obj, prev) ?? [] };
}

/** Asserts exactly one cause at `field` with `reason`, and (optionally) the message. */
export function assertCause(causes: StatusCause[], field: string, reason: string, message?: string | RegExp): void {
  const at = causes.filter((c) => c.field === field);
  assert.ok(at.length > 0, `expected a cause at ${field}, got ${JSON.stringify(causes)}`);
  const match = at.find((c) => c.reason === reason);
  assert.ok(match, `expected ${reason} at ${field}, got ${JSON.stringify(at)}`);
  if (typeof message === 'string') assert.equal(match.message, message);
  else if (message) assert.match(match.message ?? '', message);
}

/** Sets a value at a dotted path (creating objects), or deletes it for `undefined`. */
export function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let cur = obj;
  for (const p of parts.slice(0, -1)) {
    if (typeof cur[p] !== 'object' || cur[p] === null) cur[p] = {};
    cur = cur[p] as Record<string, unknown>;
  }
  const last = parts[parts.length - 1];
  if (value === undefined) delete cur[last];
  else cur[last] = value;
}

export interface RuleCase {
  name: string;
  /** dotted path ⇒ value (undefined deletes) applied to the valid object. */
  set: Record<string, unknown>;
  field: string;
  reason: string;
  message?: string | RegExp;
}

export function withChanges(base: KubeObject, set: Record<string, unknown>): KubeObject {
  const obj = structuredClone(base) as unknown as Record<string, unknown>;
  for (const [path, value] of Object.entries(set)) setPath(obj, path, value);
  return obj as unknown as KubeObject;
}

/** An events.k8s.io/v1 Event that passes validation, about claim ns/c1. */
export const EVENT_V1: KubeObject = {
  metadata: { name: 'e1', namespace: 'ns' },
  eventTime: '2024-05-01T10:00:00.123456Z',
  reportingController: 'example.com/ctrl',
  reportingInstance: 'ctrl-1',
  action: 'Provision',
  reason: 'Provisioned',
  type: 'Normal',
  regarding: { kind: 'PersistentVolumeClaim', namespace: 'ns', name: 'c1' },
  note: 'done',
};
