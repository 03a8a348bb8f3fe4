/**
 * A throwaway CA-less TLS identity and a kubeconfig pointing at it, for the bench's own bare
 * server. Same shape as the embedded API server's (EC P-256, SAN 127.0.0.1, bearer token), so
 * the client pays the same TLS and auth costs against both.
 */
import { randomBytes } from 'node:crypto';
import { renameSync, writeFileSync } from 'node:fs';
import { generate } from 'selfsigned';

export interface TlsIdentity {
  key: string;
  cert: string;
}

export async function makeTlsIdentity(): Promise<TlsIdentity> {
  const pems = await generate([{ name: 'commonName', value: 'pv-bench-bare' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }, { type: 2, value: 'localhost' }] },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}

export function makeToken(): string {
  return randomBytes(24).toString('hex');
}

/** Writes a kubeconfig (JSON is valid YAML) for https://127.0.0.1:<port> with a bearer token. */
export function writeKubeconfig(path: string, port: number, caPem: string, token: string): void {
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'bench',
        cluster: {
          server: `https://127.0.0.1:${port}`,
          'certificate-authority-data': Buffer.from(caPem).toString('base64'),
        },
      },
    ],
    users: [{ name: 'bench', user: { token } }],
    contexts: [{ name: 'bench', context: { cluster: 'bench', user: 'bench' } }],
    'current-context': 'bench',
  };
  // Written aside and renamed, so a reader polling for the file never sees half of it.
  writeFileSync(`${path}.tmp`, JSON.stringify(config, null, 2), { mode: 0o600 });
  renameSync(`${path}.tmp`, path);
}
