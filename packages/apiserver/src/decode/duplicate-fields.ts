/**
 * Duplicate fields in a JSON object body, found and decoded as kube-apiserver's decoder
 * (sigs.k8s.io/json, strict) does: each repeated key of an object literal is reported by its
 * path ("spec.containers[0].image"), and the later value is decoded into the earlier one, so
 * two objects merge key by key while anything else is replaced (Go reuses a struct or map it
 * decodes into again, and starts a list afresh).
 *
 * JSON.parse keeps only the last value and says nothing, so a cheap test comes first: every
 * `:` outside a string separates a key from its value, and JSON.parse's result holds one key
 * per separator unless a key was repeated. Only a body that fails that test is parsed again
 * here, which keeps the common body at one pass over its bytes.
 */
import { MAX_NESTING_DEPTH } from './typed-decoder.js';

/** The `:` bytes outside strings of a JSON text that JSON.parse accepted: one per object key. */
export function countKeySeparators(raw: Uint8Array): number {
  let count = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x3a) count++;
  }
  return count;
}

export interface DuplicateFields {
  /** Repeated keys by path, in document order (the repetition's place). */
  duplicates: Array<{ path: string; offset: number }>;
  /** Where each key path first appears, to put other decoding errors in document order. */
  firstOffsets: Map<string, number>;
}

interface Frame {
  container: Record<string, unknown> | unknown[];
  path: string;
  /** The pending key of an object and where it stands. */
  key?: string;
  keyOffset?: number;
}

function isPlainRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** Go decoding `later` into `earlier`: objects merge key by key, anything else is replaced. */
function mergeInto(earlier: unknown, later: unknown, depth: number): unknown {
  if (!isPlainRecord(earlier) || !isPlainRecord(later) || depth > MAX_NESTING_DEPTH) return later;
  for (const key of Object.keys(later)) {
    setOwn(earlier, key, Object.hasOwn(earlier, key) ? mergeInto(earlier[key], later[key], depth + 1) : later[key]);
  }
  return earlier;
}

function childPath(frame: Frame, key: string): string {
  return frame.path === '' ? key : `${frame.path}.${key}`;
}

const SCALAR = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;

/** The end (exclusive) of the string starting at `start` (its opening quote). */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const q = text.indexOf('"', i);
    let slashes = 0;
    while (text.charCodeAt(q - 1 - slashes) === 0x5c) slashes++;
    if (slashes % 2 === 0) return q + 1;
    i = q + 1;
  }
}

class MergingParser {
  readonly stack: Frame[] = [];
  readonly found: DuplicateFields = { duplicates: [], firstOffsets: new Map() };
  result: unknown;

  /** A finished value goes into the open container (or becomes the result). */
  place(value: unknown): void {
    const frame = this.stack[this.stack.length - 1];
    if (frame === undefined) {
      this.result = value;
      return;
    }
    if (Array.isArray(frame.container)) {
      frame.container.push(value);
      return;
    }
    const key = frame.key!;
    const target = frame.container;
    if (Object.hasOwn(target, key)) {
      this.found.duplicates.push({ path: childPath(frame, key), offset: frame.keyOffset! });
      setOwn(target, key, mergeInto(target[key], value, this.stack.length + 1));
    } else setOwn(target, key, value);
    frame.key = undefined;
  }

  /** The path the next value in the open container will have. */
  nextPath(): string {
    const frame = this.stack[this.stack.length - 1];
    if (frame === undefined) return '';
    return Array.isArray(frame.container) ? `${frame.path}[${frame.container.length}]` : childPath(frame, frame.key!);
  }

  key(name: string, offset: number): void {
    const frame = this.stack[this.stack.length - 1];
    frame.key = name;
    frame.keyOffset = offset;
    const path = childPath(frame, name);
    if (!this.found.firstOffsets.has(path)) this.found.firstOffsets.set(path, offset);
  }
}

/** Whether the open container is an object waiting for its next key. */
function expectsKey(parser: MergingParser): boolean {
  const frame = parser.stack[parser.stack.length - 1];
  return frame !== undefined && !Array.isArray(frame.container) && frame.key === undefined;
}

/**
 * Parses a JSON text that JSON.parse has accepted, with Go's treatment of repeated keys. The
 * walk is iterative, so any depth JSON.parse took is fine.
 */
export function parseWithDuplicates(text: string): { value: unknown } & DuplicateFields {
  const parser = new MergingParser();
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      const end = stringEnd(text, i);
      const value = JSON.parse(text.slice(i, end)) as string;
      if (expectsKey(parser)) parser.key(value, i);
      else parser.place(value);
      i = end;
    } else if (c === '{' || c === '[') {
      parser.stack.push({ container: c === '{' ? {} : [], path: parser.nextPath() });
      i++;
    } else if (c === '}' || c === ']') {
      parser.place(parser.stack.pop()!.container);
      i++;
    } else if (c === '-' || (c >= '0' && c <= '9') || c === 't' || c === 'f' || c === 'n') {
      SCALAR.lastIndex = i;
      const token = SCALAR.exec(text)![0];
      parser.place(JSON.parse(token));
      i += token.length;
    } else i++;
  }
  return { value: parser.result, ...parser.found };
}
