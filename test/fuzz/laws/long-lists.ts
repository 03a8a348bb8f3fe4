/**
 * Laws of long lists in an object body (issue 24): the fuzz input names a kind, a list field, how
 * many times to repeat an element, and the element; the body is that list, up to a request's
 * 3 MiB. Whatever the element and count, decoding, owner-reference deduplication and validation
 * answer without throwing, and the 422 they make encodes to a Status no larger than its budget
 * allows (the causes' 1 MiB, the message about as much, plus the element printed once more).
 */
import { InvalidError, INVALID_CAUSES_TEXT_BUDGET } from '@pv-controller/kube/errors.js';
import { parseRequestBody } from '@pv-controller/apiserver/decode/request-body.js';
import { DecodeError } from '@pv-controller/apiserver/decode/typed-decoder.js';
import { decodeKindObject } from '@pv-controller/apiserver/decode/field-validation.js';
import { MAX_BODY_BYTES } from '@pv-controller/apiserver/api/http-io.js';
import { dedupOwnerReferences } from '@pv-controller/apiserver/registry/owner-reference-dedup.js';
import { Registry } from '@pv-controller/apiserver/registry/registry.js';
import { strategies } from '@pv-controller/apiserver/resources/index.js';
import { MemoryStorage } from '@pv-controller/apiserver/storage/index.js';
import type { ResourceStrategy } from '@pv-controller/apiserver/resources/strategy.js';
import { podWith, pvWith, storageClassWith } from '../../../packages/apiserver/test/hostile/large-shapes.js';
import { acceptedOrRefused, holds } from './law.js';

type Json = Record<string, unknown>;

const FIELDS: Array<{ kind: [string, string]; place: (list: unknown[]) => Json }> = [
  { kind: ['', 'persistentvolumes'], place: (list) => pvWith('pv', {}, { ownerReferences: list }) },
  { kind: ['', 'persistentvolumes'], place: (list) => pvWith('pv', {}, { finalizers: list }) },
  { kind: ['', 'persistentvolumes'], place: (list) => pvWith('pv', { accessModes: list }) },
  { kind: ['', 'persistentvolumes'], place: (list) => pvWith('pv', { mountOptions: list }) },
  { kind: ['', 'persistentvolumes'], place: (list) => pvWith('pv', {}, { labels: Object.fromEntries(list.map((v, i) => [`k${i}`, v])) }) },
  { kind: ['storage.k8s.io', 'storageclasses'], place: (list) => storageClassWith('sc', { allowedTopologies: list }) },
  { kind: ['', 'pods'], place: (list) => podWith('pod', 'default', { tolerations: list }) },
  { kind: ['', 'pods'], place: (list) => ({ ...podWith('pod', 'default'), metadata: { name: 'pod', namespace: 'default', ownerReferences: list } }) },
];

/** The strategies as the server finds them: through its registry. */
const registry = new Registry({ storage: new MemoryStorage(), strategies });

function strategyOf([group, plural]: [string, string]): ResourceStrategy {
  const s = registry.strategyFor(group, 'v1', plural);
  if (!s) throw new Error(`no strategy for ${plural}`);
  return s;
}

function element(bytes: Buffer): unknown {
  const text = bytes.toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Input: [field, count high, count low, ...element as JSON (or a string)]. */
export function longListLaws(data: Buffer): void {
  if (data.length < 3) return;
  const field = FIELDS[data[0] % FIELDS.length];
  const count = data.readUInt16BE(1) % 60_001;
  const item = element(data.subarray(3));
  const text = JSON.stringify(field.place(Array(count).fill(item)));
  if (Buffer.byteLength(text) > MAX_BODY_BYTES) return;
  const s = strategyOf(field.kind);
  const body = parseRequestBody(Buffer.from(text), { role: 'object', kind: s.info.kind });
  const decoded = acceptedOrRefused(() => decodeKindObject(s.info, body as Json, 'Warn'), DecodeError);
  if (decoded === undefined) return;
  const object = decoded.object;
  dedupOwnerReferences(object.metadata, 'request');
  s.defaults(object);
  const causes = s.validateCreate(object);
  if (causes.length === 0) return;
  const status = JSON.stringify(new InvalidError({ kind: s.info.kind, name: 'x' }, causes).toStatus());
  const bound = 4 * INVALID_CAUSES_TEXT_BUDGET + 4 * Buffer.byteLength(JSON.stringify(item) ?? '') + 65_536;
  holds(status.length <= bound, 'a 422 stays within its budget however long the list', { count, length: status.length, bound });
}
