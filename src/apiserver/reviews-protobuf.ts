/**
 * Protobuf request bodies of the review resources: kubectl's `auth can-i` and `auth whoami`
 * post them as `application/vnd.kubernetes.protobuf` (and accept JSON back). The body is the
 * `k8s\0` envelope around a runtime.Unknown whose raw bytes are the review message; the field
 * numbers below are those of k8s.io/api's authorization/v1 and authentication/v1 messages,
 * described here rather than generated. The result is the JSON form of the same object.
 */
import protobuf from 'protobufjs/minimal.js';
import { BadRequestError } from '../kube/errors.js';

const ENVELOPE_MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** A message's fields by number: a string, a repeated string, or a nested message. */
type FieldTable = Record<number, { name: string; type: 'string' | 'strings' | FieldTable | { repeated: FieldTable } }>;

/**
 * ObjectMeta's string fields, what the "metadata must be empty" rule can see in a body: Go's
 * encoder writes every scalar field, so only a non-empty value says the client set it.
 */
const OBJECT_META: FieldTable = {
  1: { name: 'name', type: 'string' },
  2: { name: 'generateName', type: 'string' },
  3: { name: 'namespace', type: 'string' },
  4: { name: 'selfLink', type: 'string' },
  5: { name: 'uid', type: 'string' },
  6: { name: 'resourceVersion', type: 'string' },
};

const SELECTOR_REQUIREMENT: FieldTable = {
  1: { name: 'key', type: 'string' },
  2: { name: 'operator', type: 'string' },
  3: { name: 'values', type: 'strings' },
};

const SELECTOR_ATTRIBUTES: FieldTable = { 1: { name: 'rawSelector', type: 'string' }, 2: { name: 'requirements', type: { repeated: SELECTOR_REQUIREMENT } } };

const RESOURCE_ATTRIBUTES: FieldTable = {
  1: { name: 'namespace', type: 'string' },
  2: { name: 'verb', type: 'string' },
  3: { name: 'group', type: 'string' },
  4: { name: 'version', type: 'string' },
  5: { name: 'resource', type: 'string' },
  6: { name: 'subresource', type: 'string' },
  7: { name: 'name', type: 'string' },
  8: { name: 'fieldSelector', type: SELECTOR_ATTRIBUTES },
  9: { name: 'labelSelector', type: SELECTOR_ATTRIBUTES },
};

const NON_RESOURCE_ATTRIBUTES: FieldTable = { 1: { name: 'path', type: 'string' }, 2: { name: 'verb', type: 'string' } };

/** The messages by kind: metadata is field 1 and spec field 2 in each. */
const REVIEW_MESSAGES: Record<string, FieldTable> = {
  SelfSubjectAccessReview: {
    1: { name: 'metadata', type: OBJECT_META },
    2: { name: 'spec', type: { 1: { name: 'resourceAttributes', type: RESOURCE_ATTRIBUTES }, 2: { name: 'nonResourceAttributes', type: NON_RESOURCE_ATTRIBUTES } } },
  },
  SelfSubjectRulesReview: { 1: { name: 'metadata', type: OBJECT_META }, 2: { name: 'spec', type: { 1: { name: 'namespace', type: 'string' } } } },
  SelfSubjectReview: { 1: { name: 'metadata', type: OBJECT_META } },
};

const TYPE_META: FieldTable = { 1: { name: 'apiVersion', type: 'string' }, 2: { name: 'kind', type: 'string' } };

const LENGTH_DELIMITED = 2;

function decodeMessage(bytes: Uint8Array, table: FieldTable): Record<string, unknown> {
  const reader = protobuf.Reader.create(bytes);
  const out: Record<string, unknown> = {};
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    const field = table[tag >>> 3];
    const wireType = tag & 7;
    if (!field || wireType !== LENGTH_DELIMITED) {
      reader.skipType(wireType);
      continue;
    }
    const t = field.type;
    if (t === 'string') {
      const value = reader.string();
      if (value !== '') out[field.name] = value;
    }
    else if (t === 'strings') out[field.name] = [...((out[field.name] as string[] | undefined) ?? []), reader.string()];
    else if ('repeated' in t) out[field.name] = [...((out[field.name] as unknown[] | undefined) ?? []), decodeMessage(reader.bytes(), t.repeated as FieldTable)];
    else out[field.name] = decodeMessage(reader.bytes(), t);
  }
  return out;
}

/**
 * The JSON form of a protobuf review body, apiVersion and kind from the envelope's TypeMeta.
 * Bytes that are no envelope or no valid message get kube-apiserver's 400.
 */
export function decodeReviewProtobuf(raw: Buffer, kind: string): Record<string, unknown> {
  const message = REVIEW_MESSAGES[kind];
  if (!message || raw.length < ENVELOPE_MAGIC.length || !raw.subarray(0, 4).equals(ENVELOPE_MAGIC)) {
    throw new BadRequestError(`the object provided is unrecognized (must be of type ${kind}): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]`);
  }
  try {
    const unknown = decodeMessage(raw.subarray(4), { 1: { name: 'typeMeta', type: TYPE_META } });
    const rawBytes = rawField(raw.subarray(4));
    const typeMeta = (unknown.typeMeta ?? {}) as Record<string, unknown>;
    return { ...typeMeta, ...decodeMessage(rawBytes, message) };
  } catch (err) {
    if (err instanceof BadRequestError) throw err;
    throw new BadRequestError(`the object provided is unrecognized (must be of type ${kind}): ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** runtime.Unknown's field 2 (raw) as bytes. */
function rawField(envelope: Uint8Array): Uint8Array {
  const reader = protobuf.Reader.create(envelope);
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    if (tag >>> 3 === 2 && (tag & 7) === LENGTH_DELIMITED) return reader.bytes();
    reader.skipType(tag & 7);
  }
  return new Uint8Array(0);
}
