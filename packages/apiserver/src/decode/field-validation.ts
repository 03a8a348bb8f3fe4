/**
 * Decoding an object into its kind's schema and server-side field validation
 * (`?fieldValidation=Strict|Warn|Ignore`). Like kube-apiserver, which decodes into Go structs,
 * unknown fields at any depth are dropped, reported as warnings, or (Strict) refused with
 * `strict decoding error: unknown field "spec.hostPath.foo"`; a value of the wrong type is
 * refused at every level. The `Warning` headers are formatted and bounded as kube-apiserver's
 * warning recorder does it.
 */
import type { KubeObject } from '@pv-controller/kube/types.js';
import { goQuote } from './go-text.js';
import { decodeSchemaFor } from './schema.js';
import { pruneCustomResource } from '../resources/custom/prune.js';
import type { DuplicateFields } from './duplicate-fields.js';
import { duplicateFieldsOf } from './request-body.js';
import { decodeTyped, DecodeError, MAX_UNKNOWN_FIELDS } from './typed-decoder.js';
import type { FieldValidation } from '../api/query-params.js';
import type { ResourceInfo } from '../resources/strategy.js';


export interface DecodedObject {
  object: KubeObject;
  /** Field-validation warnings to return in `Warning` headers. */
  warnings: string[];
}

/**
 * A fresh, typed copy of `body` as its kind: throws DecodeError (Go's text) for a value of
 * the wrong type, and under Strict for unknown or duplicate fields; Warn returns them as
 * warnings, in document order as Go's strict decoder lists them.
 */
export function decodeKindObject(info: ResourceInfo, body: Record<string, unknown>, level: FieldValidation): DecodedObject {
  const { value, unknownFields } = decodeTyped(body, decodeSchemaFor(info));
  const object = value as KubeObject;
  object.metadata ??= {};
  const pruned = info.custom === undefined ? undefined : pruneCustomResource(object, info.custom.schema);
  if (level === 'Ignore') return { object, warnings: [] };
  const messages = pruned === undefined ? strictDecodingErrors(unknownFields, duplicateFieldsOf(body))
    : customResourceDecodingErrors([...unknownFields, ...pruned], duplicateFieldsOf(body));
  if (messages.length === 0) return { object, warnings: [] };
  if (level === 'Strict') throw new DecodeError(`strict decoding error: ${messages.join(', ')}`);
  return { object, warnings: messages };
}

/**
 * Unknown and duplicate fields as sigs.k8s.io/json reports them: in the order it meets them,
 * leaving out repetitions of an unknown field and inside one (Go skips its value unread).
 */
function strictDecodingErrors(unknownFields: string[], found: DuplicateFields | undefined): string[] {
  const unknown = unknownFields.map((path) => `unknown field ${goQuote(path)}`);
  if (found === undefined) return unknown;
  // A path is inside an unknown field when it or a prefix ending before a "." or "[" is one: a
  // set lookup per prefix, not every unknown field against every duplicate.
  const unknownSet = new Set(unknownFields);
  const lengths = new Set(unknownFields.map((u) => u.length));
  const insideUnknown = (path: string): boolean => {
    if (unknownSet.has(path)) return true;
    for (let i = 0; i < path.length; i++) {
      const c = path.charCodeAt(i);
      if ((c === 0x2e || c === 0x5b) && lengths.has(i) && unknownSet.has(path.slice(0, i))) return true;
    }
    return false;
  };
  const placed = [
    ...unknownFields.map((path, i) => ({ offset: found.firstOffsets.get(path) ?? 0, message: unknown[i] })),
    ...found.duplicates.filter((d) => !insideUnknown(d.path)).map((d) => ({ offset: d.offset, message: `duplicate field ${goQuote(d.path)}` })),
  ];
  return placed.sort((a, b) => a.offset - b.offset).slice(0, MAX_UNKNOWN_FIELDS).map((p) => p.message);
}

/**
 * A custom resource's strict decoding errors, in kube-apiserver's order: the JSON decoder's
 * duplicate fields, then the unknown fields of metadata, then the pruned ones (sorted).
 */
function customResourceDecodingErrors(unknownFields: string[], found: DuplicateFields | undefined): string[] {
  const duplicates = (found?.duplicates ?? []).map((d) => `duplicate field ${goQuote(d.path)}`);
  return [...duplicates, ...unknownFields.map((path) => `unknown field ${goQuote(path)}`)].slice(0, MAX_UNKNOWN_FIELDS);
}

/** kube-apiserver's warning recorder: past 4,096 runes in all, each warning is cut to 256. */
const TOTAL_RUNES = 4 * 1024;
const ITEM_RUNES = 256;

function runes(text: string): string[] {
  return [...text];
}

/** Go's NewWarningHeader quoting: only `"` and `\` are escaped. */
function warningHeader(text: string): string {
  const value = `299 - "${text.replace(/["\\]/g, (c) => `\\${c}`)}"`;
  // A header is bytes: UTF-8 goes out as such (node writes header strings as latin1); control
  // characters, which node refuses in headers, become spaces as Go turns CR and LF into spaces.
  return Buffer.from(value.replace(/[^\t\x20-\x7e\u0080-\uffff]/g, ' '), 'utf8').toString('latin1');
}

/** The `Warning` header values for `messages`: deduplicated, truncated and bounded like kube-apiserver. */
export function warningHeaders(messages: string[]): string[] {
  const unique = [...new Set(messages.filter((m) => m !== ''))];
  const lengths = unique.map((m) => runes(m).length);
  let written = 0;
  let count = 0;
  for (; count < unique.length && written + lengths[count] <= TOTAL_RUNES; count++) written += lengths[count];
  if (count === unique.length) return unique.map(warningHeader);
  // Over the limit: every warning is cut to ITEM_RUNES, the first one past the limit included,
  // and later ones are added only while the total is still under the limit.
  const out: string[] = [];
  written = 0;
  for (let i = 0; i < unique.length; i++) {
    if (i > count && written >= TOTAL_RUNES) break;
    const cut = lengths[i] > ITEM_RUNES ? runes(unique[i]).slice(0, ITEM_RUNES).join('') : unique[i];
    written += Math.min(lengths[i], ITEM_RUNES);
    out.push(warningHeader(cut));
  }
  return out;
}
