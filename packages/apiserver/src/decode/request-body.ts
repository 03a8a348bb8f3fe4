/**
 * Request bodies into JSON values, before anything else looks at them: JSON, or YAML for
 * create/update (as kube-apiserver accepts), a nesting limit for every body checked without
 * recursion, YAML aliases bounded, and kube-apiserver's error text for each kind of body.
 *
 * JSON object and DeleteOptions bodies may nest as deep as Go's decoder allows (10,000): V8's
 * JSON.parse and this check are iterative, and what lies deeper than MAX_NESTING_DEPTH can only
 * be an unknown field, which the typed decoder drops without walking. Patch bodies go to
 * recursive patch code and YAML to a recursive composer, so they are held to MAX_NESTING_DEPTH.
 */
import { ApiError, BadRequestError } from '@pv-controller/kube/errors.js';
import { MAX_BODY_BYTES } from '../api/http-io.js';
import { decodeObject, PROTOBUF_MEDIA_TYPE, ProtobufDecodeError } from '../protobuf/envelope.js';
import { countKeySeparators, parseWithDuplicates, type DuplicateFields } from './duplicate-fields.js';
import { goJsonSyntaxError } from '../api/go-json-syntax.js';
import { summarizeBody } from './go-text.js';
import { depthExceededMessage, MAX_NESTING_DEPTH } from './typed-decoder.js';
import { parseYamlDocument, YamlBodyError } from './yaml-body.js';

/** encoding/json's limit, which kube-apiserver's decoder inherits. */
export const GO_JSON_MAX_DEPTH = 10_000;

/** What a body is for: an object (create/update) of the endpoint's kind, a patch, or DeleteOptions. */
export type BodyRole = { role: 'object'; kind: string; apiVersion?: string } | { role: 'patch' } | { role: 'options' };

/** The media types create and update decode, in kube-apiserver's spelling. */
const OBJECT_MEDIA_TYPES = ['application/json', 'application/yaml', PROTOBUF_MEDIA_TYPE] as const;

type BodyFormat = 'json' | 'yaml' | 'protobuf';

/** The media type of a Content-Type header, lower-cased, without parameters. */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

/** 415 for a create/update body in a format we do not decode. */
class UnsupportedBodyTypeError extends ApiError {
  constructor() {
    super(415, 'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${OBJECT_MEDIA_TYPES.join(', ')}`);
  }
}

/** JSON, YAML or protobuf for a create/update Content-Type (none means JSON); 415 otherwise. */
export function objectBodyFormat(contentType: string | undefined): BodyFormat {
  const media = mediaTypeOf(contentType);
  if (media === '' || media === 'application/json' || media === '*/*') return 'json';
  if (media === 'application/yaml') return 'yaml';
  if (media === PROTOBUF_MEDIA_TYPE) return 'protobuf';
  throw new UnsupportedBodyTypeError();
}

/** Why a parsed body cannot be used: too deep, not JSON-encodable, or expanded past its budget. */
type ValueProblem = { kind: 'depth'; container: object } | { kind: 'unencodable'; message: string } | { kind: 'size' };

function unencodable(v: unknown): ValueProblem | undefined {
  if (typeof v === 'number' && !Number.isFinite(v)) {
    return { kind: 'unencodable', message: `json: unsupported value: ${Number.isNaN(v) ? 'NaN' : v > 0 ? '+Inf' : '-Inf'}` };
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto === Object.prototype || proto === null) return undefined;
  return { kind: 'unencodable', message: `json: unsupported type: ${(v as object).constructor.name}` };
}

/**
 * Walks a parsed body with an explicit stack: the first container nested deeper than `limit`
 * (the top-level value is depth 1), a value JSON cannot carry, or (for YAML, whose aliases can
 * repeat a subtree) a value that would encode to more than `sizeBudget` bytes of JSON. `counts`
 * receives the number of object keys it walked.
 */
export function inspectValue(value: unknown, limit: number, sizeBudget = Infinity, counts?: { keys: number }): ValueProblem | undefined {
  const values: unknown[] = [value];
  const depths: number[] = [1];
  let size = 0;
  let keys = 0;
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop()!;
    const bad = unencodable(v);
    if (bad) return bad;
    if (typeof v === 'object' && v !== null) {
      if (depth > limit) return { kind: 'depth', container: v };
      size += 2;
      const record = v as Record<string, unknown>;
      const isObject = !Array.isArray(v);
      for (const key in record) {
        if (isObject) keys++;
        size += key.length + 4;
        values.push(record[key]);
        depths.push(depth + 1);
      }
    } else size += typeof v === 'string' ? v.length + 3 : 8;
    if (size > sizeBudget) return { kind: 'size' };
  }
  if (counts) counts.keys = keys;
  return undefined;
}

function problemText(problem: ValueProblem, format: BodyFormat): string {
  if (problem.kind === 'unencodable') return problem.message;
  if (problem.kind === 'size') return 'yaml: document contains excessive aliasing';
  return format === 'yaml' ? `yaml: exceeded max depth of ${MAX_NESTING_DEPTH}` : depthExceededMessage(problem.container);
}

/** Go's wording of the syntax error JSON.parse found (V8's, lower-cased, should Go's scanner disagree). */
function jsonSyntaxDetail(raw: Uint8Array, err: unknown): string {
  const go = goJsonSyntaxError(raw);
  if (go !== undefined) return go;
  const message = err instanceof Error ? err.message : String(err);
  return message.charAt(0).toLowerCase() + message.slice(1);
}

function rejectBody(role: BodyRole, raw: Uint8Array, detail: string, versionKindStage = true): never {
  if (role.role === 'patch') throw new BadRequestError('invalid JSON patch');
  const stage = versionKindStage ? `couldn't get version/kind; json parse error: ${detail}` : detail;
  if (role.role === 'options') throw new BadRequestError(stage);
  throw new BadRequestError(`the object provided is unrecognized (must be of type ${role.kind}): ${stage} (${summarizeBody(raw)})`);
}

const TYPE_META_STRUCT = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/** The version/kind sniffing every object body goes through first. */
function checkTypeMeta(role: BodyRole, raw: Uint8Array, value: unknown): void {
  if (role.role === 'patch' || value === null) return;
  if (typeof value !== 'object' || Array.isArray(value)) {
    const what = Array.isArray(value) ? 'array' : typeof value === 'boolean' ? 'bool' : typeof value;
    rejectBody(role, raw, `json: cannot unmarshal ${what} into Go value of type ${TYPE_META_STRUCT}`);
  }
  for (const field of ['apiVersion', 'kind']) {
    const v = (value as Record<string, unknown>)[field];
    if (v === undefined || v === null || typeof v === 'string') continue;
    const what = Array.isArray(v) ? 'array' : typeof v === 'boolean' ? 'bool' : typeof v;
    rejectBody(role, raw, `json: cannot unmarshal ${what} into Go struct field .${field} of type string`);
  }
}

function parseYaml(role: BodyRole, raw: Uint8Array): unknown {
  try {
    return parseYamlDocument(Buffer.from(raw.buffer, raw.byteOffset, raw.length).toString('utf8'), MAX_NESTING_DEPTH);
  } catch (err) {
    if (err instanceof YamlBodyError) rejectBody(role, raw, err.message, false);
    throw err;
  }
}

/**
 * A protobuf object body as JSON, the envelope's apiVersion and kind included (the registry
 * checks them as it does a JSON body's). The schema has no recursive message, so decoding is
 * bounded in depth; the size limit held before the body was read.
 */
function parseProtobufObject(role: { kind: string; apiVersion?: string }, raw: Uint8Array): unknown {
  try {
    return decodeObject(raw, { apiVersion: role.apiVersion ?? '', kind: role.kind }).value;
  } catch (err) {
    if (!(err instanceof ProtobufDecodeError)) throw err;
    if (!err.inObject) rejectBody({ role: 'object', kind: role.kind }, raw, err.message, false);
    const version = (role.apiVersion ?? '').split('/').pop();
    throw new BadRequestError(`${role.kind} in version "${version}" cannot be handled as a ${role.kind}: ${err.message}`);
  }
}

/**
 * Parses a request body. Returns undefined for an empty or `null` DeleteOptions body and `{}`
 * for an object body of `null` (Go decodes null into an empty struct). Throws 400 with the text
 * kube-apiserver gives for the role.
 */
export function parseRequestBody(raw: Uint8Array, role: BodyRole, format: BodyFormat = 'json'): unknown {
  if (raw.length === 0 && role.role === 'options') return undefined;
  if (format === 'protobuf' && role.role === 'object') return parseProtobufObject(role, raw);
  let value: unknown;
  let text = '';
  if (format === 'yaml') value = parseYaml(role, raw);
  else {
    text = Buffer.from(raw.buffer, raw.byteOffset, raw.length).toString('utf8');
    try {
      value = JSON.parse(text);
    } catch (err) {
      rejectBody(role, raw, jsonSyntaxDetail(raw, err));
    }
  }
  const limit = format === 'json' && role.role !== 'patch' ? GO_JSON_MAX_DEPTH : MAX_NESTING_DEPTH;
  const counts = { keys: 0 };
  const problem = inspectValue(value, limit, format === 'yaml' ? MAX_BODY_BYTES : Infinity, counts);
  if (problem !== undefined) rejectBody(role, raw, problemText(problem, format), format === 'json');
  checkTypeMeta(role, raw, value);
  if (format === 'json' && role.role === 'object' && countKeySeparators(raw) !== counts.keys) value = withDuplicateFields(text);
  if (value !== null || role.role === 'patch') return value;
  return role.role === 'object' ? {} : undefined;
}

/** Duplicate fields of the object bodies parsed here, for field validation to report. */
const DUPLICATES = new WeakMap<object, DuplicateFields>();

/** The body decoded as Go decodes repeated keys, with the repetitions remembered for it. */
function withDuplicateFields(text: string): unknown {
  const { value, ...found } = parseWithDuplicates(text);
  if (typeof value === 'object' && value !== null) DUPLICATES.set(value, found);
  return value;
}

/** The duplicate fields of an object body parseRequestBody returned, if it had any. */
export function duplicateFieldsOf(body: object): DuplicateFields | undefined {
  return DUPLICATES.get(body);
}
