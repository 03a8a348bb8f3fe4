/**
 * Loads the KubeConfig the controller talks through: an explicit file, or in-cluster (service
 * account), or client-node's default chain ($KUBECONFIG, ~/.kube/config, in-cluster).
 */
import fs from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';

const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

export class KubeConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KubeConfigError';
  }
}

export function loadKubeConfig(file?: string): KubeConfig {
  const kc = new KubeConfig();
  if (file) {
    if (!fs.existsSync(file)) throw new KubeConfigError(`kubeconfig ${file} does not exist`);
    kc.loadFromFile(file);
  } else if (process.env.KUBERNETES_SERVICE_HOST && fs.existsSync(SERVICE_ACCOUNT_TOKEN)) {
    kc.loadFromCluster();
  } else {
    // client-node's chain ends in a made-up cluster at http://localhost:8080, which then fails with
    // "HTTP protocol is not allowed when skipTLSVerify is not set": say what was looked for instead.
    const home = join(homedir(), '.kube', 'config');
    if (!process.env.KUBECONFIG && !fs.existsSync(home)) {
      throw new KubeConfigError(
        `no kubeconfig: KUBECONFIG is not set, ${home} does not exist and this is not a pod; give --kubeconfig FILE, or --data-dir DIR of a running \`pv-controller up\``,
      );
    }
    kc.loadFromDefault();
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new KubeConfigError('kubeconfig has no current cluster');
  if (cluster.server.startsWith('http://') && !cluster.skipTLSVerify) {
    throw new KubeConfigError(`kubeconfig cluster "${cluster.name}" is served over plain HTTP (${cluster.server}): the client talks HTTPS only`);
  }
  return kc;
}
