/**
 * The server's TLS material: a self-signed CA and a server certificate it signs (SANs
 * localhost, 127.0.0.1, ::1 and the listen host), generated into `<dataDir>/pki` once and
 * reused on every restart so kubeconfigs written earlier stay valid.
 */
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import selfsigned from 'selfsigned';

interface TlsMaterial {
  caPem: string;
  certPem: string;
  keyPem: string;
}

const TEN_YEARS_MS = 10 * 365 * 24 * 3600 * 1000;

/** Writes a file atomically (temp file + rename), so a crash never leaves half a file. */
export async function writeFileAtomic(path: string, data: string, mode = 0o600): Promise<void> {
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(tmp, data, { mode });
  await rename(tmp, path);
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

function altNames(listenHost: string): Array<{ type: 2; value: string } | { type: 7; ip: string }> {
  const names: Array<{ type: 2; value: string } | { type: 7; ip: string }> = [
    { type: 2, value: 'localhost' },
    { type: 7, ip: '127.0.0.1' },
    { type: 7, ip: '::1' },
  ];
  const unspecified = listenHost === '0.0.0.0' || listenHost === '::' || listenHost === '';
  if (!unspecified && !['localhost', '127.0.0.1', '::1'].includes(listenHost)) {
    names.push(isIP(listenHost) ? { type: 7, ip: listenHost } : { type: 2, value: listenHost });
  }
  return names;
}

/** A self-signed EC certificate authority named `commonName`, valid until `notAfterDate`. */
export function generateCa(commonName: string, notAfterDate: Date): ReturnType<typeof selfsigned.generate> {
  return selfsigned.generate([{ name: 'commonName', value: commonName }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
}

async function generate(listenHost: string): Promise<TlsMaterial> {
  const notAfterDate = new Date(Date.now() + TEN_YEARS_MS);
  const ca = await generateCa('pv-controller-ca', notAfterDate);
  const server = await selfsigned.generate([{ name: 'commonName', value: 'pv-controller-apiserver' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notAfterDate,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: altNames(listenHost) },
    ],
  });
  return { caPem: ca.cert, certPem: server.cert, keyPem: server.private };
}

export async function loadOrCreateTls(dataDir: string, listenHost: string): Promise<TlsMaterial> {
  const dir = join(dataDir, 'pki');
  const paths = { ca: join(dir, 'ca.crt'), cert: join(dir, 'apiserver.crt'), key: join(dir, 'apiserver.key') };
  const [caPem, certPem, keyPem] = await Promise.all([readIfExists(paths.ca), readIfExists(paths.cert), readIfExists(paths.key)]);
  if (caPem && certPem && keyPem) return { caPem, certPem, keyPem };
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const made = await generate(listenHost);
  await writeFileAtomic(paths.key, made.keyPem);
  await writeFileAtomic(paths.cert, made.certPem, 0o644);
  await writeFileAtomic(paths.ca, made.caPem, 0o644);
  return made;
}
