/**
 * Query parameters as kube-apiserver reads them: apimachinery's url.Values conversions (first
 * value wins; a bool is false only when absent, "0" or "false"; an integer goes through
 * strconv.ParseInt) and its option validations (ValidateListOptions, ValidateCreate/Update/Patch/
 * DeleteOptions), each bad value answered as upstream answers it: 400 for what does not convert,
 * 422 `<Kind>Options.meta.k8s.io "" is invalid` for what does not validate. One parser per
 * parameter; every verb reads its options through here.
 */
import { BadRequestError, UnknownServerError } from '@pv-controller/kube/errors.js';
import { goQuote } from '@pv-controller/kube/name-validation.js';
import type { LabelRequirement } from '@pv-controller/kube/selectors.js';
import { parseFieldSelector, type FieldRequirement } from './field-selectors.js';
import { parseLabelSelector } from './label-selector-parser.js';
import type { StatusCause } from '@pv-controller/kube/types.js';
import { QualifiedInvalidError } from './errors.js';

/** The `fieldValidation` query parameter: what decoding does with unknown and duplicate fields. */
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';
import { appendCauses, forbidden, invalid, notSupported, required, tooLong } from './field-errors.js';

const INT64_MAX = (1n << 63n) - 1n;
const UINT64_MAX = (1n << 64n) - 1n;

/** strconv's error text: `strconv.ParseInt: parsing "abc": invalid syntax`. */
function strconvError(fn: string, input: string, problem: 'invalid syntax' | 'value out of range'): string {
  return `strconv.${fn}: parsing ${goQuote(input)}: ${problem}`;
}

/** strconv.ParseUint(s, 10, 64): digits only; overflow is reported where it happens. */
function parseGoUint(s: string, fn = 'ParseUint'): bigint {
  if (s === '') throw new Error(strconvError(fn, s, 'invalid syntax'));
  let n = 0n;
  for (const ch of s) {
    if (ch < '0' || ch > '9') throw new Error(strconvError(fn, s, 'invalid syntax'));
    n = n * 10n + BigInt(ch.charCodeAt(0) - 48);
    if (n > UINT64_MAX) throw new Error(strconvError(fn, s, 'value out of range'));
  }
  return n;
}

/** strconv.ParseInt(s, 10, 64). */
function parseGoInt64(s: string): bigint {
  const negative = s.startsWith('-');
  const digits = s.startsWith('-') || s.startsWith('+') ? s.slice(1) : s;
  let magnitude: bigint;
  try {
    magnitude = parseGoUint(digits);
  } catch (err) {
    const problem = (err as Error).message.endsWith('value out of range') ? 'value out of range' : 'invalid syntax';
    throw new Error(strconvError('ParseInt', s, problem));
  }
  if (magnitude > (negative ? INT64_MAX + 1n : INT64_MAX)) throw new Error(strconvError('ParseInt', s, 'value out of range'));
  return negative ? -magnitude : magnitude;
}

/** Convert_Slice_string_To_bool: absent, "0" and "false" (any case) are false; anything else ("" too) is true. */
export function queryBool(params: URLSearchParams, name: string): boolean {
  return queryOptionalBool(params, name) ?? false;
}

/** A `*bool` parameter: undefined when absent. */
export function queryOptionalBool(params: URLSearchParams, name: string): boolean | undefined {
  const v = params.get(name);
  if (v === null) return undefined;
  return !(v === '0' || v.toLowerCase() === 'false');
}

/** An int64 parameter (first value); a value ParseInt refuses is a 400 with strconv's text. */
export function queryInt64(params: URLSearchParams, name: string): bigint | undefined {
  const v = params.get(name);
  if (v === null) return undefined;
  try {
    return parseGoInt64(v);
  } catch (err) {
    throw new BadRequestError((err as Error).message);
  }
}

/** The 422 an options struct that does not validate gets. */
function optionsInvalid(kind: string, causes: StatusCause[]): QualifiedInvalidError {
  return new QualifiedInvalidError({ kind, group: 'meta.k8s.io', name: undefined }, causes);
}

/** A resourceVersion as storage parses it: `resourceVersion: Invalid value: "x": strconv.ParseUint...`. */
export function resourceVersionProblem(rv: string): string | undefined {
  try {
    parseGoUint(rv);
    return undefined;
  } catch (err) {
    return `resourceVersion: Invalid value: ${goQuote(rv)}: ${(err as Error).message}`;
  }
}

/** GET and watch: storage answers an unparsable resourceVersion with a reason-less 500. */
export function requireStorageResourceVersion(rv: string): void {
  if (rv === '') return;
  const problem = resourceVersionProblem(rv);
  if (problem !== undefined) throw new UnknownServerError(problem);
}

/**
 * PUT and PATCH: the resourceVersion a body carries is parsed by storage before it is compared,
 * so one that is no number is a reason-less 500 with strconv's text alone.
 */
export function requireBodyResourceVersion(rv: string | undefined): void {
  if (rv === undefined || rv === '') return;
  try {
    parseGoUint(rv);
  } catch (err) {
    throw new UnknownServerError((err as Error).message);
  }
}

// ---------------------------------------------------------------------------------------------
// ListOptions (list, watch, deletecollection)

export interface ListQuery {
  labels: LabelRequirement[];
  fields: FieldRequirement[];
  watch: boolean;
  allowWatchBookmarks: boolean;
  resourceVersion: string;
  resourceVersionMatch: string;
  timeoutSeconds?: bigint;
  /** 0 or negative: no limit. */
  limit: bigint;
  continueToken: string;
  sendInitialEvents?: boolean;
}

const NOT_OLDER_THAN = 'NotOlderThan';
const EXACT = 'Exact';
const RVM = 'resourceVersionMatch';

/** SetListOptionsDefaults with WatchList on: a watch from "now" or "0" sends its initial state. */
function applyWatchListDefaults(q: ListQuery): void {
  if (q.sendInitialEvents !== undefined || q.resourceVersionMatch !== '') return;
  if (q.watch && (q.resourceVersion === '' || q.resourceVersion === '0')) {
    q.sendInitialEvents = true;
    q.resourceVersionMatch = NOT_OLDER_THAN;
  }
}

function listCauses(q: ListQuery): StatusCause[] {
  const causes: StatusCause[] = [];
  const match = q.resourceVersionMatch;
  if (match !== '') {
    if (q.resourceVersion === '') causes.push(forbidden(RVM, 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    if (q.continueToken !== '') causes.push(forbidden(RVM, 'resourceVersionMatch is forbidden when continue is provided'));
    if (match !== EXACT && match !== NOT_OLDER_THAN) causes.push(notSupported(RVM, match, [EXACT, NOT_OLDER_THAN, '']));
    if (match === EXACT && q.resourceVersion === '0') {
      causes.push(forbidden(RVM, 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    }
  }
  if (q.sendInitialEvents !== undefined) causes.push(forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  return causes;
}

function watchCauses(q: ListQuery): StatusCause[] {
  const causes: StatusCause[] = [];
  const match = q.resourceVersionMatch;
  if (q.sendInitialEvents !== undefined && match !== NOT_OLDER_THAN) {
    causes.push(forbidden(RVM, `sendInitialEvents requires setting resourceVersionMatch to ${NOT_OLDER_THAN}`));
  }
  if (match !== '') {
    if (q.sendInitialEvents === undefined) {
      causes.push(forbidden(RVM, 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
    }
    if (match !== NOT_OLDER_THAN) causes.push(notSupported(RVM, match, [NOT_OLDER_THAN]));
    if (q.continueToken !== '') causes.push(forbidden(RVM, 'resourceVersionMatch is forbidden when continue is provided'));
  }
  return causes;
}

/** ListOptions from the query, converted in upstream's field order, defaulted and validated. */
export function parseListQuery(params: URLSearchParams): ListQuery {
  const timeoutSeconds = queryInt64(params, 'timeoutSeconds');
  const limit = queryInt64(params, 'limit') ?? 0n;
  const q: ListQuery = {
    labels: parseLabelSelector(params.get('labelSelector') ?? ''),
    fields: parseFieldSelector(params.get('fieldSelector') ?? ''),
    watch: queryBool(params, 'watch'),
    allowWatchBookmarks: queryBool(params, 'allowWatchBookmarks'),
    resourceVersion: params.get('resourceVersion') ?? '',
    resourceVersionMatch: params.get(RVM) ?? '',
    timeoutSeconds,
    limit,
    continueToken: params.get('continue') ?? '',
    sendInitialEvents: queryOptionalBool(params, 'sendInitialEvents'),
  };
  applyWatchListDefaults(q);
  const causes = q.watch ? watchCauses(q) : listCauses(q);
  if (causes.length > 0) throw optionsInvalid('ListOptions', causes);
  return q;
}

// ---------------------------------------------------------------------------------------------
// Create, Update and Patch options

export type WriteOptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions';

interface WriteQuery {
  dryRun: boolean;
  fieldManager: string;
  /** Absent or '' reads as Warn, the server's default. */
  fieldValidation: FieldValidation;
  /** Server-side apply only: take fields other managers own. */
  force: boolean;
}

/** FieldManagerMaxLength in apimachinery. */
const FIELD_MANAGER_MAX_BYTES = 128;
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
const FIELD_VALIDATIONS = ['', 'Ignore', 'Strict', 'Warn'];

/** ValidateFieldManager: at most 128 bytes, every rune printable (position = byte offset). */
function fieldManagerCauses(manager: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (Buffer.byteLength(manager) > FIELD_MANAGER_MAX_BYTES) causes.push(tooLong('fieldManager', FIELD_MANAGER_MAX_BYTES));
  let offset = 0;
  for (const ch of manager) {
    if (!PRINTABLE.test(ch)) {
      const cp = (ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
      causes.push(invalid('fieldManager', manager, `invalid character U+${cp} (at position ${offset})`));
    }
    offset += Buffer.byteLength(ch);
  }
  return causes;
}

/** ValidateDryRun: every value must be "All". */
function dryRunCauses(values: string[]): StatusCause[] {
  if (values.every((v) => v === 'All')) return [];
  return [notSupported('dryRun', values, ['All'])];
}

function fieldValidationCauses(value: string): StatusCause[] {
  return FIELD_VALIDATIONS.includes(value) ? [] : [notSupported('fieldValidation', value, FIELD_VALIDATIONS)];
}

/** Create/Update/PatchOptions; `force` and a required fieldManager belong to server-side apply (`apply`). */
export function parseWriteQuery(params: URLSearchParams, kind: WriteOptionsKind, apply = false): WriteQuery {
  const dryRun = params.getAll('dryRun');
  const fieldManager = params.get('fieldManager') ?? '';
  const fieldValidation = params.get('fieldValidation') ?? '';
  const causes: StatusCause[] = [];
  if (kind === 'PatchOptions' && !apply && params.has('force')) {
    causes.push(forbidden('force', 'may not be specified for non-apply patch'));
  }
  if (apply && fieldManager === '') causes.push(required('fieldManager', 'is required for apply patch'));
  appendCauses(causes, fieldManagerCauses(fieldManager), dryRunCauses(dryRun), fieldValidationCauses(fieldValidation));
  if (causes.length > 0) throw optionsInvalid(kind, causes);
  return {
    dryRun: dryRun.length > 0,
    fieldManager,
    fieldValidation: fieldValidation === '' ? 'Warn' : (fieldValidation as FieldValidation),
    force: apply && queryBool(params, 'force'),
  };
}

// ---------------------------------------------------------------------------------------------
// DeleteOptions (from the query when the request has no body)

export interface DeleteOptionValues {
  gracePeriodSeconds?: bigint;
  preconditions?: { uid?: string; resourceVersion?: string };
  orphanDependents?: boolean;
  propagationPolicy?: string;
  dryRun: string[];
  ignoreStoreReadErrorWithClusterBreakingPotential?: boolean;
}

const PROPAGATION_POLICIES = ['Foreground', 'Background', 'Orphan'];
const IGNORE_STORE_READ_ERROR = 'ignoreStoreReadErrorWithClusterBreakingPotential';

export function parseDeleteQuery(params: URLSearchParams): DeleteOptionValues {
  return {
    gracePeriodSeconds: queryInt64(params, 'gracePeriodSeconds'),
    orphanDependents: queryOptionalBool(params, 'orphanDependents'),
    propagationPolicy: params.get('propagationPolicy') ?? undefined,
    dryRun: params.getAll('dryRun'),
    ignoreStoreReadErrorWithClusterBreakingPotential: queryOptionalBool(params, IGNORE_STORE_READ_ERROR),
  };
}

function ignoreStoreReadErrorCauses(o: DeleteOptionValues): StatusCause[] {
  if (o.ignoreStoreReadErrorWithClusterBreakingPotential !== true) return [];
  const conflicting: Array<[unknown, string]> = [
    [o.propagationPolicy, 'propagationPolicy'],
    [o.orphanDependents, 'orphanDependents'],
    [o.gracePeriodSeconds, 'gracePeriodSeconds'],
    [o.preconditions, 'preconditions'],
  ];
  return conflicting
    .filter(([value]) => value !== undefined)
    .map(([, name]) => invalid(IGNORE_STORE_READ_ERROR, true, `cannot be set together with .${name}`));
}

/** ValidateDeleteOptions: a 422 `DeleteOptions.meta.k8s.io "" is invalid`. */
export function validateDeleteOptions(o: DeleteOptionValues): void {
  const causes: StatusCause[] = [];
  const policy = o.propagationPolicy;
  if (o.orphanDependents !== undefined && policy !== undefined) {
    causes.push(invalid('propagationPolicy', policy, 'orphanDependents and deletionPropagation cannot be both set'));
  }
  if (policy !== undefined && !PROPAGATION_POLICIES.includes(policy)) {
    causes.push(notSupported('propagationPolicy', policy, [...PROPAGATION_POLICIES, 'nil']));
  }
  appendCauses(causes, dryRunCauses(o.dryRun), ignoreStoreReadErrorCauses(o));
  if (causes.length > 0) throw optionsInvalid('DeleteOptions', causes);
}
