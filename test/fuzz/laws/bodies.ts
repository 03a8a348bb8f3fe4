/**
 * Laws of request bodies: object decoding (any bytes either decode into the kind or are refused
 * with a Status; a decoded object decodes to itself with nothing unknown left), validation that
 * answers any decoded object without throwing, and the three patch formats applied to a valid
 * object (a refusal is a 4xx; the current object is never mutated; the result is bounded and
 * decodes, or is refused with a 4xx; merge patch is idempotent and `{}` changes nothing).
 */
import { ApiError } from '@pv-controller/kube/errors.js';
import type { KubeObject } from '@pv-controller/kube/types.js';
import { parseRequestBody } from '@pv-controller/apiserver/decode/request-body.js';
import { DecodeError } from '@pv-controller/apiserver/decode/typed-decoder.js';
import { decodeKindObject } from '@pv-controller/apiserver/decode/field-validation.js';
import { applyMergePatch, applyPatch, JSON_PATCH, MAX_PATCHED_OBJECT_BYTES, MERGE_PATCH, STRATEGIC_MERGE_PATCH } from '@pv-controller/apiserver/endpoints/patch/index.js';
import { decodePatchResult } from '@pv-controller/apiserver/endpoints/patch/patch-result.js';
import { Registry } from '@pv-controller/apiserver/registry/registry.js';
import { strategies } from '@pv-controller/apiserver/resources/index.js';
import { MemoryStorage } from '@pv-controller/apiserver/storage/index.js';
import type { ResourceStrategy } from '@pv-controller/apiserver/resources/strategy.js';
import { acceptedOrRefused, canonicalJson, holds, jsonEqual } from './law.js';

export const PATCH_TYPES = [JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH] as const;

/** The strategies as the server finds them: through its registry. */
const registry = new Registry({ storage: new MemoryStorage(), strategies });

function strategy(plural: string): ResourceStrategy {
  const found = registry.strategyFor('', 'v1', plural) ?? registry.strategyFor('storage.k8s.io', 'v1', plural);
  if (!found) throw new Error(`no strategy for ${plural}`);
  return found;
}
export const PV_STRATEGY = strategy('persistentvolumes');
export const PVC_STRATEGY = strategy('persistentvolumeclaims');

/** A stored-looking, valid volume: what every patch law is applied to. */
export function validVolume(): KubeObject {
  return {
    apiVersion: 'v1', kind: 'PersistentVolume',
    metadata: { name: 'pv-1', uid: 'u-1', resourceVersion: '7', labels: { a: 'b' }, finalizers: ['kubernetes.io/pv-protection'] },
    spec: {
      capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain',
      storageClassName: 'manual', mountOptions: ['ro'], hostPath: { path: '/tmp/pv-1', type: '' }, volumeMode: 'Filesystem',
    },
    status: { phase: 'Available' },
  } as unknown as KubeObject;
}

/** A client error: the request is refused, the server stays well (no 5xx). */
function isClientError(err: unknown): boolean {
  return err instanceof ApiError && err.code >= 400 && err.code < 500;
}

function refusedWith4xx<T>(what: string, input: unknown, fn: () => T): T | undefined {
  try {
    return fn();
  } catch (err) {
    holds(isClientError(err), `${what} refuses with a 4xx Status`, { input: String(input).slice(0, 300), err: String(err) });
    return undefined;
  }
}

/** Decodes an object body for `strategy`'s kind as create does: parse, decode, default, validate. */
export function objectBodyLaws(raw: Uint8Array, s: ResourceStrategy = PV_STRATEGY): void {
  const body = refusedWith4xx('parsing an object body', Buffer.from(raw).toString('utf8'), () =>
    parseRequestBody(raw, { role: 'object', kind: s.info.kind }));
  if (body === undefined) return;
  holds(typeof body === 'object' && body !== null && !Array.isArray(body), 'a parsed object body is an object', { body });
  const decoded = acceptedOrRefused(() => decodeKindObject(s.info, body as Record<string, unknown>, 'Warn'), DecodeError);
  if (decoded === undefined) return;
  const again = decodeKindObject(s.info, JSON.parse(JSON.stringify(decoded.object)) as Record<string, unknown>, 'Strict');
  holds(jsonEqual(again.object, decoded.object), 'a decoded object decodes to itself', { first: decoded.object, again: again.object });
  const object = structuredClone(decoded.object);
  s.defaults(object);
  const causes = s.validateCreate(object);
  holds(Array.isArray(causes), 'validation answers with a list of causes', { causes });
  holds(causes.every((c) => typeof c.message === 'string'), 'every cause has a message', { causes });
}

/** A patch of any type and body, applied to a valid volume. */
export function patchLaws(contentType: string, raw: Uint8Array, current: KubeObject = validVolume(), s: ResourceStrategy = PV_STRATEGY): void {
  const before = canonicalJson(current);
  const patched = refusedWith4xx(`applying a ${contentType}`, Buffer.from(raw).toString('utf8'), () => applyPatch(contentType, current, raw, s));
  holds(canonicalJson(current) === before, 'a patch never mutates the current object', { contentType });
  if (patched === undefined) return;
  holds(Buffer.byteLength(JSON.stringify(patched)) <= MAX_PATCHED_OBJECT_BYTES, 'a patch result is no larger than a body', { contentType });
  refusedWith4xx('decoding a patch result', '', () => {
    try {
      return decodePatchResult(s.info, contentType, raw, patched, 'Warn');
    } catch (err) {
      if (err instanceof DecodeError) throw new ApiError(422, 'Invalid', err.message);
      throw err;
    }
  });
  if (contentType === MERGE_PATCH) mergePatchLaws(current, JSON.parse(Buffer.from(raw).toString('utf8')) as unknown);
}

/** RFC 7386: applying a merge patch twice is applying it once; `{}` changes nothing. */
export function mergePatchLaws(target: KubeObject, patch: unknown): void {
  const once = applyMergePatch(target, patch);
  const twice = applyMergePatch(once, patch);
  holds(jsonEqual(once, twice), 'a merge patch is idempotent', { patch });
  holds(jsonEqual(applyMergePatch(target, {}), target), 'an empty merge patch changes nothing', {});
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) {
    holds(jsonEqual(once, patch), 'a merge patch that is no object replaces the target', { patch });
  }
}
