/**
 * The request target (`/api/v1/...?a=b`) split and decoded as Go's net/http and net/url do for
 * kube-apiserver, without normalising anything: the path is percent-decoded once (so `%2F` is a
 * separator, as it is upstream) and `.`, `..`, empty segments and their encoded forms stay what
 * they are, for the router and the storage-key checks to refuse. WHATWG URL parsing would resolve
 * `/a/%2e%2e/b` to `/b` and let a request act on another object.
 */

/** Go's http server answers a target it cannot parse with a bare 400 before any handler runs. */
export class MalformedRequestTargetError extends Error {
  constructor(detail: string) {
    super(`malformed request target: ${detail}`);
  }
}

export interface RequestTarget {
  /** The raw path as sent (for logs). */
  rawPath: string;
  /** The percent-decoded path. */
  path: string;
  /** Query parameters in order, as url.ParseQuery keeps them (pairs it cannot decode dropped). */
  query: URLSearchParams;
}

const isHexDigit = (b: number | undefined): boolean =>
  b !== undefined && ((b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66));

/** %XX-decodes `s` into UTF-8 text (invalid sequences become U+FFFD); undefined on a bad escape. */
function percentDecode(s: string, plusIsSpace: boolean): string | undefined {
  if (!s.includes('%') && !(plusIsSpace && s.includes('+'))) return s;
  const raw = Buffer.from(s, 'utf8');
  const out = Buffer.alloc(raw.length);
  let n = 0;
  for (let i = 0; i < raw.length; i++) {
    const b = raw[i];
    if (b === 0x25) {
      if (!isHexDigit(raw[i + 1]) || !isHexDigit(raw[i + 2])) return undefined;
      out[n++] = parseInt(raw.subarray(i + 1, i + 3).toString('latin1'), 16);
      i += 2;
    } else {
      out[n++] = b === 0x2b && plusIsSpace ? 0x20 : b;
    }
  }
  return out.subarray(0, n).toString('utf8');
}

/** url.ParseQuery: `&`-separated pairs; a pair with `;` or a bad escape is skipped, not fatal. */
export function parseQuery(raw: string): URLSearchParams {
  const query = new URLSearchParams();
  for (const pair of raw.split('&')) {
    if (pair === '' || pair.includes(';')) continue;
    const eq = pair.indexOf('=');
    const key = percentDecode(eq < 0 ? pair : pair.slice(0, eq), true);
    const value = percentDecode(eq < 0 ? '' : pair.slice(eq + 1), true);
    if (key !== undefined && value !== undefined) query.append(key, value);
  }
  return query;
}

/** Strips `scheme://authority` from an absolute-form target (RFC 9112 3.2.2), as Go accepts it. */
function originForm(target: string): string {
  const absolute = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?]*/.exec(target);
  if (!absolute) return target;
  const rest = target.slice(absolute[0].length);
  return rest === '' || rest.startsWith('?') ? `/${rest}` : rest;
}

/** Splits and decodes `req.url`; throws MalformedRequestTargetError where Go's server answers 400. */
export function parseRequestTarget(target: string): RequestTarget {
  const origin = originForm(target);
  if (!origin.startsWith('/') && origin !== '*') throw new MalformedRequestTargetError('not a path');
  const q = origin.indexOf('?');
  const rawPath = q < 0 ? origin : origin.slice(0, q);
  const path = percentDecode(rawPath, false);
  if (path === undefined) throw new MalformedRequestTargetError('invalid escape in the path');
  return { rawPath, path, query: parseQuery(q < 0 ? '' : origin.slice(q + 1)) };
}
