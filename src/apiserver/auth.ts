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

/** Constant-time check of `Authorization: Bearer <token>`. */
export function hasValidToken(req: IncomingMessage, token: string): boolean {
  const header = req.headers.authorization;
  if (!header || !header.startsWith('Bearer ')) return false;
  const given = Buffer.from(header.slice('Bearer '.length).trim());
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
