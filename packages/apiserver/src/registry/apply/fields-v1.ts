/**
 * FieldsV1, the JSON form of a field set in managedFields: every key a path element, `"."` marks
 * a node that is itself a member, `{}` a leaf member. Decoding checks every element's spelling,
 * so a malformed entry sent by a client is refused as a whole rather than half read.
 */
import { FieldSet, sortedElements } from './fieldset.js';

export class FieldsV1Error extends Error {}

export type FieldsObject = { [key: string]: FieldsObject };

/** The leaf `{}`, one frozen object for every leaf of every encoded set. */
const LEAF: FieldsObject = Object.freeze({});

/** A set's FieldsV1; its leaves are one shared frozen `{}`, the inner objects are new. */
export function encodeFieldsV1(set: FieldSet): FieldsObject {
  if (!set.children || set.children.size === 0) return LEAF;
  const out: FieldsObject = {};
  if (set.member) out['.'] = LEAF;
  for (const k of sortedElements(set.children)) out[k] = encodeFieldsV1(set.children.get(k)!);
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function checkElement(element: string): void {
  const body = element.slice(2);
  const ok = (() => {
    if (element.length < 2 || element[1] !== ':') return false;
    switch (element[0]) {
      case 'f':
        return true;
      case 'i':
        return /^\d+$/.test(body);
      case 'k':
      case 'v':
        try {
          const parsed: unknown = JSON.parse(body);
          return element[0] === 'v' || isObject(parsed);
        } catch {
          return false;
        }
      default:
        return false;
    }
  })();
  if (!ok) throw new FieldsV1Error(`invalid path element ${JSON.stringify(element)}`);
}

/** The set a FieldsV1 value describes; nesting is bounded by the request decoder before this. */
export function decodeFieldsV1(value: unknown): FieldSet {
  if (!isObject(value)) throw new FieldsV1Error('fieldsV1 must be an object');
  const root = new FieldSet();
  const work: Array<[Record<string, unknown>, FieldSet]> = [[value, root]];
  while (work.length > 0) {
    const [obj, node] = work.pop()!;
    const keys = Object.keys(obj);
    if (keys.length === 0 && node !== root) node.member = true;
    for (const key of keys) {
      const v = obj[key];
      if (!isObject(v)) throw new FieldsV1Error(`the value of ${JSON.stringify(key)} must be an object`);
      if (key === '.') {
        node.member = true;
        continue;
      }
      checkElement(key);
      work.push([v, node.ensure(key)]);
    }
  }
  return root;
}
