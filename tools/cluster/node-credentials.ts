/**
 * The credentials that join kubelets to the control plane (control-plane.ts, `nodes` option):
 * a static token per node name (user `system:node:<name>` in group `system:nodes`, what the Node
 * authorizer and the NodeRestriction rules key on), and the client certificate kube-apiserver
 * presents to the kubelets (logs, exec, proxy), signed by a CA of its own that each kubelet
 * trusts for client certificates. Its subject is in `system:masters`, so the kubelets' webhook
 * authorization (a SubjectAccessReview) allows the API server everything.
 */
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import selfsigned from 'selfsigned';
import { binaryPath } from './binaries.js';
import { generateCa } from '@pv-controller/apiserver/http/tls.js';

export interface NodeCredentials {
  /** Node name → its bearer token. */
  tokens: Record<string, string>;
  /** The CA the kubelets trust for client certificates (PEM file). */
  kubeletClientCaPath: string;
  kubeletClientCertPath: string;
  kubeletClientKeyPath: string;
}

export function nodeNames(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `node-${i + 1}`);
}

/** `token,user,uid,groups` lines of kube-apiserver's --token-auth-file for the nodes. */
export function nodeTokenLines(tokens: Record<string, string>): string {
  return Object.entries(tokens).map(([name, token]) => `${token},system:node:${name},node-${name},system:nodes\n`).join('');
}

export async function makeNodeCredentials(dir: string, count: number): Promise<NodeCredentials> {
  const tokens = Object.fromEntries(nodeNames(count).map((n) => [n, randomBytes(24).toString('hex')]));
  const notAfterDate = new Date(Date.now() + 365 * 24 * 3600 * 1000);
  const ca = await generateCa('pv-controller-kubelet-client-ca', notAfterDate);
  const client = await selfsigned.generate(
    [{ name: 'commonName', value: 'kube-apiserver-kubelet-client' }, { name: 'organizationName', value: 'system:masters' }],
    {
      keyType: 'ec',
      algorithm: 'sha256',
      notAfterDate,
      ca: { key: ca.private, cert: ca.cert },
      extensions: [
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, critical: true },
        { name: 'extKeyUsage', clientAuth: true },
      ],
    },
  );
  const creds: NodeCredentials = {
    tokens,
    kubeletClientCaPath: join(dir, 'kubelet-client-ca.crt'),
    kubeletClientCertPath: join(dir, 'kubelet-client.crt'),
    kubeletClientKeyPath: join(dir, 'kubelet-client.key'),
  };
  await writeFile(creds.kubeletClientCaPath, ca.cert);
  await writeFile(creds.kubeletClientCertPath, client.cert);
  await writeFile(creds.kubeletClientKeyPath, client.private, { mode: 0o600 });
  return creds;
}

/** kube-apiserver's flags for reaching kubelets on loopback with that certificate. */
export function apiServerKubeletArgs(creds: NodeCredentials): string[] {
  return [
    `--kubelet-client-certificate=${creds.kubeletClientCertPath}`,
    `--kubelet-client-key=${creds.kubeletClientKeyPath}`,
    // By node name, which resolves to 127.0.0.1 for kube-apiserver alone (apiServerSeeingNodes).
    '--kubelet-preferred-address-types=Hostname',
  ];
}

/**
 * kube-apiserver started in a private mount namespace of its own whose /etc/hosts also maps
 * every node name to 127.0.0.1. Every kubelet listens on 127.0.0.1 only, and a kubelet refuses a
 * loopback --node-ip ("nodeIP can't be loopback address"), so the InternalIP it reports is the
 * machine's own interface address, where nothing of ours listens; the node name is the address
 * kube-apiserver dials. `unshare` and `sh` both exec, so the pid is kube-apiserver's.
 */
export async function apiServerSeeingNodes(dir: string, nodes: string[]): Promise<{ bin: string; args: string[] }> {
  const hosts = join(dir, 'hosts');
  const machine = await readFile('/etc/hosts', 'utf8').catch(() => '127.0.0.1 localhost\n');
  await writeFile(hosts, `${machine.trimEnd()}\n127.0.0.1 ${nodes.join(' ')}\n`);
  const script = 'mount --bind "$0" /etc/hosts && exec "$@"';
  return { bin: 'unshare', args: ['--mount', '--propagation', 'private', '--', '/bin/sh', '-c', script, hosts, binaryPath('kube-apiserver')] };
}
