/**
 * How Go's encoding/json decodes a JSON string into a []byte field: base64.StdEncoding.Decode,
 * which wants padded standard base64, skips '\r' and '\n' anywhere, and stops at the first byte
 * it cannot use with "illegal base64 data at input byte N" (N counted in the UTF-8 bytes of the
 * string). Secret `data` values are such fields: what a client sends is decoded this way, and
 * the server writes the bytes back as canonical base64.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const CANONICAL = /^[A-Za-z0-9+/]*={0,2}$/;
const PAD = 0x3d; // '='
const CR = 0x0d;
const LF = 0x0a;

const DECODE_MAP: Int16Array = (() => {
  const map = new Int16Array(256).fill(-1);
  for (let i = 0; i < ALPHABET.length; i++) map[ALPHABET.charCodeAt(i)] = i;
  return map;
})();

export type Base64Result = { bytes: Buffer } | { errorAt: number };

const isNewline = (b: number): boolean => b === CR || b === LF;

function skipNewlines(src: Uint8Array, at: number): number {
  let i = at;
  while (i < src.length && isNewline(src[i])) i++;
  return i;
}

/** After a '=' at quantum position `j`: where the quantum ends, or the offset Go reports. */
function afterPadding(src: Uint8Array, si: number, j: number): { si: number } | { errorAt: number } {
  let i = si;
  if (j < 2) return { errorAt: i - 1 };
  if (j === 2) {
    i = skipNewlines(src, i);
    if (i === src.length) return { errorAt: src.length };
    if (src[i] !== PAD) return { errorAt: i - 1 };
    i++;
  }
  i = skipNewlines(src, i);
  return i < src.length ? { errorAt: i } : { si: i };
}

/** Go's `encoding/base64` StdEncoding.Decode (not strict), as a decoded buffer or the error offset. */
export function goBase64Decode(text: string): Base64Result {
  // The common case, canonical padded base64, in one native step.
  if (text.length % 4 === 0 && CANONICAL.test(text)) return { bytes: Buffer.from(text, 'base64') };
  const src = Buffer.from(text, 'utf8');
  const out = Buffer.alloc(Math.ceil(src.length / 4) * 3);
  let n = 0;
  let si = 0;
  while (si < src.length) {
    const quantum: number[] = [];
    let ended = false;
    while (quantum.length < 4) {
      if (si === src.length) {
        if (quantum.length === 0) return { bytes: out.subarray(0, n) };
        return { errorAt: si - quantum.length };
      }
      const b = src[si++];
      const v = DECODE_MAP[b];
      if (v >= 0) {
        quantum.push(v);
        continue;
      }
      if (isNewline(b)) continue;
      if (b !== PAD) return { errorAt: si - 1 };
      const end = afterPadding(src, si, quantum.length);
      if ('errorAt' in end) return end;
      si = end.si;
      ended = true;
      break;
    }
    const [a = 0, b = 0, c = 0, d = 0] = quantum;
    const value = (a << 18) | (b << 12) | (c << 6) | d;
    const bytes = [(value >> 16) & 0xff, (value >> 8) & 0xff, value & 0xff];
    for (let k = 0; k < quantum.length - 1; k++) out[n++] = bytes[k];
    if (ended) break;
  }
  return { bytes: out.subarray(0, n) };
}

/** The message Go's decoder saves for a []byte value that is not base64. */
export function illegalBase64Message(offset: number): string {
  return `illegal base64 data at input byte ${offset}`;
}
