/**
 * Text the way kube-apiserver's Go code renders it inside error messages, so that our messages
 * match byte for byte: strconv.Quote (`%q`), the 30-byte body summary of a decode error
 * (apiserver's handlers `summarizeData`), and `%v` of a decoded JSON value.
 */

/** unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

const SHORT_ESCAPES: Record<string, string> = {
  '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v', '"': '\\"', '\\': '\\\\',
};

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

function quoteRune(ch: string): string {
  const short = SHORT_ESCAPES[ch];
  if (short !== undefined) return short;
  if (PRINTABLE.test(ch)) return ch;
  const cp = ch.codePointAt(0) ?? 0;
  if (cp < 0x80) return `\\x${hex(cp, 2)}`;
  // A lone surrogate is not valid UTF-8; Go's decoder has already made it U+FFFD.
  if (cp >= 0xd800 && cp <= 0xdfff) return '\ufffd';
  return cp < 0x10000 ? `\\u${hex(cp, 4)}` : `\\U${hex(cp, 8)}`;
}

/** Everything but printable ASCII other than `"` and `\`: each such rune is looked at alone. */
const NOT_PLAIN = /[^\x20-\x21\x23-\x5b\x5d-\x7e]/gu;

/** Go's strconv.Quote: printable runes kept, everything else escaped. */
export function goQuote(text: string): string {
  return `"${text.replace(NOT_PLAIN, quoteRune)}"`;
}

/**
 * The start of a request body as decode errors quote it: up to 30 bytes as text when it looks
 * like JSON, as hex otherwise, with " ..." when cut.
 */
export function summarizeBody(raw: Uint8Array): string {
  const max = 30;
  if (raw.length === 0) return '<empty>';
  const head = Buffer.from(raw.buffer, raw.byteOffset, Math.min(raw.length, max));
  const more = raw.length > max ? ' ...' : '';
  return (raw[0] === 0x7b ? head.toString('utf8') : head.toString('hex')) + more;
}

/** `%v` of a value decoded from JSON into interface{}: maps sorted by key, numbers as Go prints them. */
export function goFormatValue(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(goFormatValue).join(' ')}]`;
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).sort();
    return `map[${keys.map((k) => `${k}:${goFormatValue(record[k])}`).join(' ')}]`;
  }
  return String(value);
}
