/**
 * Loads the KubeConfig the controller talks through: an explicit file, or in-cluster (service
 * account), or client-node's default chain ($KUBECONFIG, ~/.kube/config, in-cluster).
 */
import fs from 'node:fs';
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
    kc.loadFromDefault();
  }
  if (!kc.getCurrentCluster()) throw new KubeConfigError('kubeconfig has no current cluster');
  return kc;
}
