/**
 * DeleteOptions as a request gives them, from its body (JSON, YAML or protobuf) or else its query,
 * decoded and validated into the options the registry's delete takes.
 */
import { BadRequestError } from '@pv-controller/kube/errors.js';
import { parseRequestBody } from '../decode/request-body.js';
import { schemaForKind } from '../decode/schema.js';
import { decodeTyped, DecodeError } from '../decode/typed-decoder.js';
import type { DeleteOptions } from '../registry/deletion.js';
import { isPlainObject } from '../resources/object-utils.js';
import { decodeProtobufDeleteOptions, isProtobufBody } from '../protobuf/request-body.js';
import { parseDeleteQuery, validateDeleteOptions, type DeleteOptionValues } from '../api/query-params.js';

type JsonKind = 'string' | 'number' | 'bool' | 'array' | 'object';

function jsonKindOf(v: unknown): JsonKind {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'number';
  return 'object';
}

/** encoding/json's UnmarshalTypeError text (a number names its literal only when an integer field refuses it). */
function typeError(value: unknown, field: string, goType: string): BadRequestError {
  const literal = typeof value === 'number' && goType === 'int64' ? `number ${value}` : jsonKindOf(value);
  return new BadRequestError(`json: cannot unmarshal ${literal} into Go struct field ${field} of type ${goType}`);
}

function optionalString(value: unknown, field: string, goType: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw typeError(value, field, goType);
  return value;
}

function optionalBool(value: unknown, field: string): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw typeError(value, field, 'bool');
  return value;
}

function optionalInt64(value: unknown, field: string): bigint | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  throw typeError(value, field, 'int64');
}

function stringList(value: unknown, field: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw typeError(value, field, '[]string');
  return value.map((v) => optionalString(v, field, 'string') ?? '');
}

function decodePreconditions(value: unknown): DeleteOptionValues['preconditions'] {
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) throw typeError(value, 'DeleteOptions.preconditions', 'v1.Preconditions');
  return {
    uid: optionalString(value.uid, 'Preconditions.preconditions.uid', 'types.UID'),
    resourceVersion: optionalString(value.resourceVersion, 'Preconditions.preconditions.resourceVersion', 'string'),
  };
}

const NOT_AN_OBJECT =
  'json: cannot unmarshal %s into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/** A DeleteOptions body, decoded field by field with the type errors kube-apiserver's decoder gives. */
function decodeDeleteOptionsBody(body: unknown): DeleteOptionValues {
  if (body === null) return { dryRun: [] };
  if (!isPlainObject(body)) {
    throw new BadRequestError(`couldn't get version/kind; json parse error: ${NOT_AN_OBJECT.replace('%s', jsonKindOf(body))}`);
  }
  return {
    gracePeriodSeconds: optionalInt64(body.gracePeriodSeconds, 'DeleteOptions.gracePeriodSeconds'),
    preconditions: decodePreconditions(body.preconditions),
    orphanDependents: optionalBool(body.orphanDependents, 'DeleteOptions.orphanDependents'),
    propagationPolicy: optionalString(body.propagationPolicy, 'DeleteOptions.propagationPolicy', 'v1.DeletionPropagation'),
    dryRun: stringList(body.dryRun, 'DeleteOptions.dryRun'),
    ignoreStoreReadErrorWithClusterBreakingPotential: optionalBool(
      body.ignoreStoreReadErrorWithClusterBreakingPotential,
      'DeleteOptions.ignoreStoreReadErrorWithClusterBreakingPotential',
    ),
  };
}

/**
 * DeleteOptions from the body when there is one (kubectl sends `{"propagationPolicy":"Background"}`),
 * else from the query, as kube-apiserver reads them: never a mix of both. Validated before anything
 * is looked up, so `dryRun=all` is refused rather than taken as a real delete.
 */
export function parseDeleteOptions(body: unknown, params: URLSearchParams): DeleteOptions {
  const values = body === undefined ? parseDeleteQuery(params) : decodeDeleteOptionsBody(body);
  validateDeleteOptions(values);
  const opts: DeleteOptions = { dryRun: values.dryRun.length > 0 };
  if (values.preconditions) opts.preconditions = values.preconditions;
  if (values.propagationPolicy !== undefined) opts.propagationPolicy = values.propagationPolicy;
  if (values.orphanDependents !== undefined) opts.orphanDependents = values.orphanDependents;
  if (values.gracePeriodSeconds !== undefined) opts.gracePeriodSeconds = Number(values.gracePeriodSeconds);
  return opts;
}

/** DeleteOptions from a body, typed as kube-apiserver decodes them (unknown fields ignored). */
export function decodeDeleteOptions(raw: Buffer, contentType: string | undefined): Record<string, unknown> | undefined {
  const body = isProtobufBody(contentType, raw) ? decodeProtobufDeleteOptions(raw) : parseRequestBody(raw, { role: 'options' });
  if (body === undefined) return undefined;
  try {
    return decodeTyped(body as Record<string, unknown>, schemaForKind('', 'v1', 'DeleteOptions')).value;
  } catch (err) {
    throw err instanceof DecodeError ? new BadRequestError(err.message) : err;
  }
}
