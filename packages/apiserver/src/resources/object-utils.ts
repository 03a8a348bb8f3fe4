/** Small pure helpers the registry uses on stored objects. */
import { randomInt } from 'node:crypto';
import type { KubeObject } from '@pv-controller/kube/types.js';

let lastSecond = NaN;
let lastSecondText = '';

/** RFC 3339 with whole seconds, as metav1.Time serialises (the last second's text is reused). */
export function rfc3339Seconds(date: Date): string {
  const second = Math.floor(date.getTime() / 1000);
  if (second !== lastSecond) {
    lastSecondText = date.toISOString().replace(/\.\d{3}Z$/, 'Z');
    lastSecond = second;
  }
  return lastSecondText;
}

/** Same alphabet as apimachinery's utilrand.String (no vowels, no confusable digits). */
const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const MAX_GENERATED_BASE = 58;

/** `generateName` + 5 random characters, with the base cut as upstream (63 - 5). */
export function generatedName(base: string): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += NAME_ALPHABET[randomInt(NAME_ALPHABET.length)];
  return base.slice(0, MAX_GENERATED_BASE) + suffix;
}

/** Deep equality for JSON values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    if (a.length !== bb.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], bb[i])) return false;
    return true;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  // Plain loops: this runs on every write (no-op detection, managedFields), mostly on equal trees.
  let defined = 0;
  for (const k of Object.keys(ao)) {
    if (ao[k] === undefined) continue;
    if (!Object.hasOwn(bo, k) || !jsonEqual(ao[k], bo[k])) return false;
    defined++;
  }
  for (const k of Object.keys(bo)) if (bo[k] !== undefined) defined--;
  return defined === 0;
}

/**
 * A JSON value's text with object keys in sorted order and undefined members left out: two values
 * are jsonEqual exactly when their canonical texts are equal, so a list's items can be compared
 * through a Set in linear time instead of pairwise. Recursive: the request decoder holds every
 * value to 100 levels before it gets here.
 */
export function canonicalJson(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).filter((k) => record[k] !== undefined).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`).join(',')}}`;
}

/** Everything but metadata and status: what a generation bump is decided on. */
export function specPart(obj: KubeObject): Record<string, unknown> {
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (k !== 'metadata' && k !== 'status' && k !== 'kind' && k !== 'apiVersion') rest[k] = v;
  }
  return rest;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
