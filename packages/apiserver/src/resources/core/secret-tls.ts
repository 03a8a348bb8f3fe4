/**
 * warningsForSecret: a `kubernetes.io/tls` Secret is accepted whatever its key pair, but
 * kube-apiserver warns when Go's tls.X509KeyPair refuses it. The same checks in its order and
 * words: PEM blocks of the right types, a certificate and a private key that parse, the key
 * matching the certificate. (A certificate or key that does not parse gets one generic text,
 * where Go's x509 names the exact defect.)
 */
import { createPrivateKey, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';

interface PemBlock {
  type: string;
  der: Buffer;
}

const PEM_BLOCK = /-----BEGIN ([^\r\n-]*)-----\r?\n([\s\S]*?)-----END \1-----/g;

/** The PEM blocks of `input`, in order (pem.Decode until it finds none). */
function pemBlocks(input: Buffer): PemBlock[] {
  const out: PemBlock[] = [];
  for (const m of input.toString('latin1').matchAll(PEM_BLOCK)) {
    const body = m[2].replace(/\s+/g, '');
    if (/^[A-Za-z0-9+/]*={0,2}$/.test(body)) out.push({ type: m[1], der: Buffer.from(body, 'base64') });
  }
  return out;
}

const skippedText = (types: string[]): string => `[${types.join(' ')}]`;

function certificateBlock(cert: Buffer): PemBlock | string {
  const blocks = pemBlocks(cert);
  const found = blocks.find((b) => b.type === 'CERTIFICATE');
  if (found) return found;
  if (blocks.length === 0) return 'tls: failed to find any PEM data in certificate input';
  if (blocks.length === 1 && blocks[0].type.endsWith('PRIVATE KEY')) {
    return 'tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs may have been switched';
  }
  return `tls: failed to find "CERTIFICATE" PEM block in certificate input after skipping PEM blocks of the following types: ${skippedText(blocks.map((b) => b.type))}`;
}

function keyBlock(key: Buffer): PemBlock | string {
  const skipped: string[] = [];
  for (const b of pemBlocks(key)) {
    if (b.type === 'PRIVATE KEY' || b.type.endsWith(' PRIVATE KEY')) return b;
    skipped.push(b.type);
  }
  if (skipped.length === 0) return 'tls: failed to find any PEM data in key input';
  if (skipped.length === 1 && skipped[0] === 'CERTIFICATE') return 'tls: found a certificate rather than a key in the PEM for the private key';
  return `tls: failed to find PEM block with type ending in "PRIVATE KEY" in key input after skipping PEM blocks of the following types: ${skippedText(skipped)}`;
}

/** parsePrivateKey: PKCS #1, PKCS #8, then SEC 1. */
function parsePrivateKey(der: Buffer): KeyObject | undefined {
  for (const type of ['pkcs1', 'pkcs8', 'sec1'] as const) {
    try {
      return createPrivateKey({ key: der, format: 'der', type });
    } catch {
      // the next encoding
    }
  }
  return undefined;
}

const SUPPORTED = new Set(['rsa', 'ec', 'ed25519']);

/** Why Go's tls.X509KeyPair refuses this pair, or undefined when it accepts it. */
export function x509KeyPairError(cert: Buffer, key: Buffer): string | undefined {
  const certBlock = certificateBlock(cert);
  if (typeof certBlock === 'string') return certBlock;
  const privBlock = keyBlock(key);
  if (typeof privBlock === 'string') return privBlock;
  let publicKey: KeyObject;
  try {
    publicKey = new X509Certificate(certBlock.der).publicKey;
  } catch {
    return 'x509: malformed certificate';
  }
  const privateKey = parsePrivateKey(privBlock.der);
  if (!privateKey) return 'tls: failed to parse private key';
  if (!SUPPORTED.has(publicKey.asymmetricKeyType ?? '')) return 'tls: unknown public key algorithm';
  if (privateKey.asymmetricKeyType !== publicKey.asymmetricKeyType) return 'tls: private key type does not match public key type';
  const spki = (k: KeyObject): Buffer => k.export({ type: 'spki', format: 'der' });
  return spki(createPublicKey(privateKey)).equals(spki(publicKey)) ? undefined : 'tls: private key does not match public key';
}
