/**
 * Bearer-token authentication: one random token kept in `<dataDir>/token` (mode 0600). Health
 * and version endpoints stay open, as kube-apiserver's are to anonymous clients.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { IncomingMessage } from 'node:http';
import { writeFileAtomic } from './tls.js';

/** The paths kube-apiserver's system:public-info-viewer role opens to anyone, matched exactly. */
const OPEN_PATHS = new Set(['/healthz', '/readyz', '/livez', '/version', '/version/']);

export async function loadOrCreateToken(dataDir: string): Promise<string> {
  const path = join(dataDir, 'token');
  try {
    const existing = (await readFile(path, 'utf8')).trim();
    if (existing !== '') return existing;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await mkdir(dataDir, { recursive: true });
  const token = randomBytes(32).toString('base64url');
  await writeFileAtomic(path, `${token}\n`);
  return token;
}

/** `pathname` is the decoded path, never normalised: `/healthz/../api/...` is not open. */
export function isOpenPath(pathname: string): boolean {
  return OPEN_PATHS.has(pathname);
}

/**
 * The token of an `Authorization` header read as kube-apiserver's bearer authenticator reads
 * it: the header trimmed, split on the first two single spaces, the scheme `bearer` in any case,
 * the token the second part. `Bearer  t` (two spaces) has an empty token and names nobody.
 */
export function bearerToken(header: string | undefined): string | undefined {
  const parts = (header ?? '').trim().split(' ');
  if (parts.length < 2 || parts[0].toLowerCase() !== 'bearer' || parts[1] === '') return undefined;
  return parts[1];
}

/** Constant-time check of the request's bearer token. */
export function hasValidToken(req: IncomingMessage, token: string): boolean {
  const bearer = bearerToken(req.headers.authorization);
  if (bearer === undefined) return false;
  const given = Buffer.from(bearer);
  const want = tokenBytes(token);
  return given.length === want.length && timingSafeEqual(given, want);
}

let lastToken = '';
let lastTokenBytes = Buffer.alloc(0);

/** The server's token as bytes (one token per server: encoded once, not per request). */
function tokenBytes(token: string): Buffer {
  if (token !== lastToken) {
    lastTokenBytes = Buffer.from(token);
    lastToken = token;
  }
  return lastTokenBytes;
}
