/**
 * The kubeconfig a client needs for this server: cluster (URL + CA), user (bearer token),
 * one current context. Written atomically, and only once the server accepts requests, so a
 * reader that sees the file can connect.
 */
import { stringify } from 'yaml';
import { writeFileAtomic } from './tls.js';

const KUBECONFIG_NAME = 'pv-controller';

function kubeconfigYaml(server: string, caPem: string, token: string): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      { name: KUBECONFIG_NAME, cluster: { server, 'certificate-authority-data': Buffer.from(caPem).toString('base64') } },
    ],
    users: [{ name: `${KUBECONFIG_NAME}-admin`, user: { token } }],
    contexts: [
      { name: KUBECONFIG_NAME, context: { cluster: KUBECONFIG_NAME, user: `${KUBECONFIG_NAME}-admin`, namespace: 'default' } },
    ],
    'current-context': KUBECONFIG_NAME,
    preferences: {},
  });
}

export async function writeKubeconfig(path: string, server: string, caPem: string, token: string): Promise<void> {
  await writeFileAtomic(path, kubeconfigYaml(server, caPem, token));
}
