import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfigError, loadKubeConfig } from '../../src/kube-client/kubeconfig.js';

async function withEnv<T>(env: Record<string, string | undefined>, body: () => T | Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  try {
    return await body();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

test('with no kubeconfig anywhere the error says what was looked for, not client-node\'s made-up http://localhost:8080', async () => {
  const home = await mkdtemp(join(tmpdir(), 'kc-home-'));
  try {
    await withEnv({ HOME: home, KUBECONFIG: undefined, KUBERNETES_SERVICE_HOST: undefined }, () => {
      assert.throws(
        () => loadKubeConfig(),
        (err: unknown) =>
          err instanceof KubeConfigError &&
          err.message.includes(`${home}/.kube/config does not exist`) &&
          err.message.includes('--kubeconfig') &&
          !/HTTP protocol/.test(err.message),
      );
    });
  } finally {
    await rm(home, { recursive: true, force: true });
  }
});

test('a kubeconfig whose cluster is plain HTTP is refused naming the cluster and its address', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kc-http-'));
  try {
    const file = join(dir, 'config');
    await writeFile(
      file,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{name: plain, cluster: {server: "http://127.0.0.1:8080"}}]',
        'users: [{name: u, user: {token: t}}]',
        'contexts: [{name: c, context: {cluster: plain, user: u}}]',
        'current-context: c',
      ].join('\n'),
    );
    assert.throws(() => loadKubeConfig(file), /kubeconfig cluster "plain" is served over plain HTTP \(http:\/\/127\.0\.0\.1:8080\)/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
