/**
 * A real crash: the controller runs in a child process and is killed with SIGKILL right after the
 * host-path plugin made the directory and before the PV object exists. The intent finalizer on
 * the claim is all the next controller needs: it either publishes that same directory as the PV
 * or, when the claim was deleted meanwhile, deletes it. Never a leftover. Killed in the middle of
 * writing the volume record instead, it leaves a temporary record file: `orphans` reports it and
 * the next controller removes it on start.
 */
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdir, utimes, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FINALIZER_PROVISIONING } from '@pv-controller/kube/annotations.js';
import type { PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { HOST_PATH_PROVISIONER } from '../../src/plugins/host-path/index.js';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';
import { runCli, stopCliProcesses } from '../helpers/run-cli.js';
import { claimLeft, exists, TestApi, waitFor } from './provisioning-helpers.js';

const CHILD = fileURLToPath(new URL('./provisioning-child.js', import.meta.url));

interface Setup {
  cluster: TestCluster;
  api: TestApi;
  child?: ChildProcess;
}

const running: Setup[] = [];

afterEach(async () => {
  await stopCliProcesses();
  for (const s of running.splice(0)) {
    if (s.child && s.child.exitCode === null && s.child.signalCode === null) {
      process.kill(-s.child.pid!, 'SIGKILL');
      await once(s.child, 'exit');
    }
    s.api.close();
    await s.cluster.stop();
  }
});

/**
 * Starts a cluster without an in-process controller and a hanging controller child (`mode`, see
 * provisioning-child.ts); resolves when it is ready. `provisioned` resolves with what the child
 * reports: the backing name (`hang`) or the temporary record file (`hang-record`).
 */
async function setupWithChild(mode: 'hang' | 'hang-record' = 'hang'): Promise<Setup & { provisioned: Promise<string> }> {
  const cluster = await startTestCluster({ noController: true });
  const api = new TestApi(cluster.kc);
  const child = spawn(process.execPath, [CHILD, cluster.api.server.kubeconfigPath, cluster.hostPathRoot, mode], {
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const s: Setup = { cluster, api, child };
  running.push(s);
  let out = '';
  let onProvisioned: (name: string) => void = () => undefined;
  const provisioned = new Promise<string>((resolve) => (onProvisioned = resolve));
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('ready\n')) resolve();
      const match = /(?:provisioned|record-temporary) (\S+)\n/.exec(out);
      if (match) onProvisioned(match[1]);
    });
    child.once('exit', (code, signal) => reject(new Error(`controller child exited early (${code ?? signal})`)));
  });
  await ready;
  return { ...s, provisioned };
}

async function killChild(s: Setup): Promise<void> {
  process.kill(-s.child!.pid!, 'SIGKILL');
  await once(s.child!, 'exit');
}

function newClaim(name: string): PersistentVolumeClaim {
  return {
    metadata: { name, namespace: 'default' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'fast' },
  };
}

async function createClassAndClaim(s: Setup): Promise<PersistentVolumeClaim> {
  await s.api.createClass({ metadata: { name: 'fast' }, provisioner: HOST_PATH_PROVISIONER, reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' });
  return s.api.createClaim(newClaim('data'));
}

async function provisionThenKill(s: Setup & { provisioned: Promise<string> }): Promise<{ claim: PersistentVolumeClaim; dir: string }> {
  const claim = await createClassAndClaim(s);
  const backingName = await s.provisioned;
  assert.equal(backingName, `kubernetes-dynamic-pvc-${claim.metadata.uid}`);
  await killChild(s);
  const dir = join(s.cluster.hostPathRoot, backingName);
  assert.ok(await exists(dir), 'the killed controller left a directory behind');
  assert.deepEqual(await s.api.volumes(), [], 'and no PV for it');
  assert.ok((await s.api.claim('default', 'data'))?.metadata.finalizers?.includes(FINALIZER_PROVISIONING));
  return { claim, dir };
}

test('kill -9 between directory and PV: the next controller publishes that directory as the claim\'s PV and binds it', async () => {
  const s = await setupWithChild();
  const { claim, dir } = await provisionThenKill(s);
  await s.cluster.startController();
  const bound = await waitFor(async () => {
    const c = await s.api.claim('default', 'data');
    return c?.status?.phase === 'Bound' ? c : undefined;
  }, 'the claim to be Bound');
  assert.equal(bound.spec.volumeName, `pvc-${claim.metadata.uid}`);
  const pvs = await s.api.volumes();
  assert.equal(pvs.length, 1);
  assert.equal(pvs[0].spec.hostPath?.path, dir);
  assert.ok(!bound.metadata.finalizers?.includes(FINALIZER_PROVISIONING));
});

test('kill -9 between directory and PV, then the claim deleted: the next controller deletes the directory', async () => {
  const s = await setupWithChild();
  const { dir } = await provisionThenKill(s);
  await s.api.deleteClaim('default', 'data');
  await s.cluster.startController();
  await waitFor(async () => !(await exists(dir)), 'the directory to be deleted');
  await claimLeft(s.api, 'default', 'data');
  assert.deepEqual(await s.api.volumes(), []);
});

async function hostPathOrphans(s: Setup): Promise<string> {
  const result = await runCli(['orphans', '--kubeconfig', s.cluster.api.server.kubeconfigPath, '--host-path-root', s.cluster.hostPathRoot]);
  assert.equal(result.code, 0, result.stderr);
  return result.stdout;
}

test('kill -9 while writing the volume record: orphans reports the temporary file, the next controller removes it on start, orphans --delete one older than a write', async () => {
  const s = await setupWithChild('hang-record');
  const claim = await createClassAndClaim(s);
  const temporary = await s.provisioned;
  await killChild(s);
  const recordDir = join(s.cluster.hostPathRoot, '.pv-controller');
  const backingName = `kubernetes-dynamic-pvc-${claim.metadata.uid}`;
  assert.match(basename(temporary), new RegExp(`^${backingName}\\.json\\.[0-9a-f]{8}$`));
  assert.deepEqual(await readdir(recordDir), [basename(temporary)], 'the killed writer left only its temporary file');
  assert.match(await hostPathOrphans(s), new RegExp(`${HOST_PATH_PROVISIONER}\\s+${temporary.replaceAll('.', '\\.')}\\s`));

  // The controller comes back two minutes later; meanwhile another writer is mid-write.
  const twoMinutesAgo = new Date(Date.now() - 120_000);
  await utimes(temporary, twoMinutesAgo, twoMinutesAgo);
  const inProgress = join(recordDir, 'kubernetes-dynamic-pvc-other.json.0123abcd');
  await writeFile(inProgress, '{');
  await s.cluster.startController();
  await waitFor(async () => (await s.api.claim('default', 'data'))?.status?.phase === 'Bound', 'the claim to be Bound');
  assert.deepEqual((await readdir(recordDir)).sort(), [`${backingName}.json`, basename(inProgress)].sort());
  const listed = await hostPathOrphans(s);
  assert.ok(!listed.includes(temporary), listed);
  assert.ok(listed.includes(inProgress), 'a temporary file that may be a write in progress is kept, and reported');

  await utimes(inProgress, twoMinutesAgo, twoMinutesAgo);
  const args = ['orphans', '--kubeconfig', s.cluster.api.server.kubeconfigPath, '--host-path-root', s.cluster.hostPathRoot, '--delete'];
  const deleted = await runCli(args);
  assert.equal(deleted.code, 0, deleted.stderr);
  assert.match(deleted.stdout, new RegExp(`${inProgress.replaceAll('.', '\\.')}\\s+removed`));
  assert.deepEqual(await readdir(recordDir), [`${backingName}.json`]);
});
