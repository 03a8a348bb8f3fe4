import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadOrCreateTls } from '@pv-controller/apiserver/http/tls.js';
import { secretStrategy as secrets } from '@pv-controller/apiserver/resources/core/secrets.js';
import { create } from './helpers.js';

let dir: string;
let cert: string;
let key: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'secret-tls-'));
  const made = await loadOrCreateTls(dir, '127.0.0.1');
  cert = made.certPem;
  key = made.keyPem;
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const b64 = (text: string): string => Buffer.from(text).toString('base64');

function tlsWarnings(crt: string, k: string): string[] {
  const { obj, causes } = create(secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 't', namespace: 'ns' }, type: 'kubernetes.io/tls', data: { 'tls.crt': b64(crt), 'tls.key': b64(k) } });
  assert.deepEqual(causes, []);
  return secrets.warnings?.(obj) ?? [];
}

test('a TLS Secret with a matching certificate and key gets no warning', () => {
  assert.deepEqual(tlsWarnings(cert, key), []);
});

test('a TLS Secret whose key pair does not load is accepted with tls.X509KeyPair words as a warning', () => {
  assert.deepEqual(tlsWarnings('', ''), ['tls: failed to find any PEM data in certificate input']);
  assert.deepEqual(tlsWarnings(key, cert), ['tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs may have been switched']);
  assert.deepEqual(tlsWarnings(cert, cert), ['tls: found a certificate rather than a key in the PEM for the private key']);
  assert.deepEqual(tlsWarnings(cert, ''), ['tls: failed to find any PEM data in key input']);
  const type = new X509Certificate(cert).publicKey.asymmetricKeyType === 'rsa' ? 'rsa' : 'ec';
  const other = type === 'rsa'
    ? generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey
    : generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
  assert.deepEqual(tlsWarnings(cert, other.export({ type: 'pkcs8', format: 'pem' }).toString()), ['tls: private key does not match public key']);
});

test('only TLS Secrets are checked for a key pair', () => {
  const { obj } = create(secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'o', namespace: 'ns' }, data: { 'tls.crt': '' } });
  assert.deepEqual(secrets.warnings?.(obj), []);
});
