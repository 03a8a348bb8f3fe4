/**
 * Laws of the parsers that read text from outside: quantities, label and field selectors, the
 * request target (path and query) with the router and storage-key checks, and the query
 * parameters of lists, writes and deletes.
 */
import { ApiError, BadRequestError } from '@pv-controller/kube/errors.js';
import { Quantity, QuantityParseError } from '@pv-controller/kube/quantity.js';
import { matchesLabelRequirements } from '@pv-controller/kube/selectors.js';
import { matchesFieldRequirements, parseFieldSelector } from '@pv-controller/apiserver/api/field-selectors.js';
import { labelRequirementsToString, parseLabelSelector } from '@pv-controller/apiserver/api/label-selector-parser.js';
import { parseDeleteQuery, parseListQuery, parseWriteQuery, requireStorageResourceVersion, validateDeleteOptions } from '@pv-controller/apiserver/api/query-params.js';
import { MalformedRequestTargetError, parseQuery, parseRequestTarget } from '@pv-controller/apiserver/api/request-target.js';
import { parseResourcePath, pathTokens } from '@pv-controller/apiserver/api/router.js';
import { requireCollectionKey, requireObjectKey } from '@pv-controller/apiserver/registry/storage-key.js';
import { acceptedOrRefused, canonicalJson, holds, jsonEqual } from './law.js';

/** Accepted quantities print canonically, and the canonical form parses to the same value and prints itself. */
export function quantityLaws(text: string): void {
  const q = acceptedOrRefused(() => Quantity.parse(text), QuantityParseError);
  if (q === undefined) return;
  const canonical = q.toString();
  const again = acceptedOrRefused(() => Quantity.parse(canonical), QuantityParseError);
  holds(again !== undefined, 'the canonical form of an accepted quantity parses', { text, canonical });
  holds(again.nanos === q.nanos, 'the canonical form has the same value', { text, canonical, again: again.toString() });
  holds(again.toString() === canonical, 'printing is idempotent', { text, canonical, twice: again.toString() });
  const abs = (n: bigint): bigint => (n < 0n ? -n : n);
  holds(abs(q.toBytes()) * 1_000_000_000n >= abs(q.nanos), 'whole units round away from zero', { text });
  holds(q.sign() === again.sign(), 'the sign survives printing', { text });
}

/** Label sets the selector laws are checked on (keys a fuzzer or generator is likely to name). */
export const SAMPLE_LABEL_SETS: Array<Record<string, string>> = [
  {}, { a: '' }, { a: 'b' }, { a: '1', b: '2' }, { 'x.io/a': 'in' }, { a: '-5', b: '10' }, { in: 'notin', a: 'a' },
];

/** A selector string prints to a form that parses to the same requirements and selects the same labels. */
export function labelSelectorLaws(text: string, labelSets: Array<Record<string, string>> = SAMPLE_LABEL_SETS): void {
  const reqs = acceptedOrRefused(() => parseLabelSelector(text), BadRequestError);
  if (reqs === undefined) return;
  const printed = labelRequirementsToString(reqs);
  const again = acceptedOrRefused(() => parseLabelSelector(printed), BadRequestError);
  holds(again !== undefined, 'the printed selector parses', { text, printed });
  holds(jsonEqual(again, reqs), 'the printed selector has the same requirements', { text, printed, reqs, again });
  for (const labels of [...labelSets, ...reqs.map((r) => ({ [r.key]: r.values[0] ?? '' }))]) {
    holds(matchesLabelRequirements(reqs, labels) === matchesLabelRequirements(again, labels), 'both select the same labels', { text, labels });
  }
}

const escapeFieldValue = (v: string): string => v.replace(/[\\,=]/g, (c) => `\\${c}`);

/** A field selector's requirements, printed with escapes, parse back; matching reads absent fields as "". */
export function fieldSelectorLaws(text: string): void {
  const reqs = acceptedOrRefused(() => parseFieldSelector(text), BadRequestError);
  if (reqs === undefined) return;
  const printed = reqs.map((r) => `${r.field}${r.operator === 'Equals' ? '=' : '!='}${escapeFieldValue(r.value)}`).join(',');
  const again = acceptedOrRefused(() => parseFieldSelector(printed), BadRequestError);
  // Terms are applied in the sorted order of their raw text (as fields.ParseSelector sorts them).
  const asSet = (rs: typeof reqs): string[] => rs.map((r) => canonicalJson(r)).sort();
  holds(again !== undefined && jsonEqual(asSet(again), asSet(reqs)), 'the printed field selector has the same requirements', { text, printed, reqs, again });
  for (const r of reqs) {
    const named = matchesFieldRequirements([r], { [r.field]: r.value });
    holds(named === (r.operator === 'Equals'), 'a requirement decides on the value it names', { text, r });
  }
}

const RESOURCE = { plural: 'persistentvolumeclaims', namespaced: true };

/**
 * The request target: either Go's bare 400 or a decoded path; encoding the decoded path again
 * decodes to itself; the router never throws, and a name or namespace the key checks let through
 * is one path segment that is neither `.` nor `..`.
 */
export function requestTargetLaws(target: string): void {
  const parsed = acceptedOrRefused(() => parseRequestTarget(target), MalformedRequestTargetError);
  if (parsed === undefined) return;
  holds(parsed.path === '*' || parsed.path.startsWith('/'), 'a decoded path is absolute', { target, path: parsed.path });
  const reencoded = parsed.path.split('/').map(encodeURIComponent).join('/');
  const again = parseRequestTarget(reencoded);
  holds(again.path === parsed.path, 'percent-encoding the decoded path decodes to it again', { target, path: parsed.path, again: again.path });
  const tokens = pathTokens(parsed.path);
  holds(tokens.every((t) => !t.includes('/')), 'a token is one segment', { target, tokens });
  const resource = parseResourcePath(parsed.path);
  if (resource?.name === undefined) return;
  const namespace = resource.namespace ?? 'default';
  const admitted = acceptedOrRefused(() => (requireObjectKey(RESOURCE, namespace, resource.name!), true), ApiError);
  if (admitted) {
    for (const part of [namespace, resource.name]) {
      holds(part !== '' && part !== '.' && part !== '..' && !part.includes('/'), 'a key part is one segment, no dot-segment', { target, part });
    }
  }
  acceptedOrRefused(() => requireCollectionKey(RESOURCE, resource.namespace), ApiError);
}

/** Every query string is parsed into options or refused with a Status (ApiError), never a crash. */
export function queryLaws(rawQuery: string): void {
  const params = parseQuery(rawQuery);
  acceptedOrRefused(() => parseListQuery(params), ApiError);
  for (const kind of ['CreateOptions', 'UpdateOptions', 'PatchOptions'] as const) acceptedOrRefused(() => parseWriteQuery(params, kind), ApiError);
  const options = acceptedOrRefused(() => parseDeleteQuery(params), ApiError);
  if (options !== undefined) acceptedOrRefused(() => validateDeleteOptions(options), ApiError);
  const listed = acceptedOrRefused(() => parseListQuery(params), ApiError);
  if (listed === undefined) return;
  holds(listed.limit >= -(2n ** 63n) && listed.limit < 2n ** 63n, 'a limit is an int64', { rawQuery, limit: listed.limit });
  holds(listed.resourceVersion === (params.get('resourceVersion') ?? ''), 'the resourceVersion is kept as sent', { rawQuery });
  acceptedOrRefused(() => requireStorageResourceVersion(listed.resourceVersion), ApiError);
}
