/**
 * The shipped manifests against the real kube-apiserver: every object in deploy/ is accepted
 * by server-side dry-run (admission, validation and RBAC escalation checks included).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { REPO_ROOT } from '../../tools/cluster/binaries.js';
import { kubectlPath, NO_KUBECTL, runKubectl } from '../helpers/apiserver.js';
import { realControlPlaneSkip, startTestControlPlane } from '../helpers/control-plane.js';

const skip = realControlPlaneSkip() || (kubectlPath() ? false : NO_KUBECTL);

test('kubectl apply --dry-run=server -f deploy/ is accepted by kube-apiserver, and creates nothing', { skip, timeout: 120_000 }, async () => {
  // deploy/node-agent.yaml runs privileged (loop mounts): allowed here as kubeadm clusters allow it.
  const plane = await startTestControlPlane({ controllerServiceAccount: false, apiServerArgs: ['--allow-privileged=true'] });
  try {
    const applied = await runKubectl(['apply', '--dry-run=server', '-f', join(REPO_ROOT, 'deploy')], plane.kubeconfigPath);
    assert.equal(applied.code, 0, `kubectl apply failed:\n${applied.stderr}`);
    assert.match(applied.stdout, /clusterrole\.rbac\.authorization\.k8s\.io\/pv-controller created \(server dry run\)/);
    assert.match(applied.stdout, /deployment\.apps\/pv-controller created \(server dry run\)/);
    assert.match(applied.stdout, /poddisruptionbudget\.policy\/pv-controller created \(server dry run\)/);
    const after = await runKubectl(['get', 'clusterrole', 'pv-controller', '--ignore-not-found', '-o', 'name'], plane.kubeconfigPath);
    assert.equal(after.stdout.trim(), '', 'a dry run stores nothing');
  } finally {
    await plane.stop();
    await plane.removeDir();
  }
});
