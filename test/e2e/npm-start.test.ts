/**
 * The newcomer's path: `npm start`, then the kubectl commands its banner prints. The server is
 * started with exactly the arguments of package.json's start script (only the data dir moved to
 * a temp dir, so a developer's own .pv-controller is never touched), and the banner's commands
 * are run as printed, from the repository root.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { kubectlPath, NO_KUBECTL, runKubectl } from '../helpers/apiserver.js';
import { waitFor } from '../helpers/wait.js';

const here = dirname(fileURLToPath(import.meta.url));
/** The directory holding package.json, above the compiled test wherever the build put it. */
function findRepoRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}
const repoRoot = findRepoRoot(here);
const cli = resolve(here, '..', '..', 'src', 'cli', 'main.js');
const kubectl = kubectlPath();

let dataDir: string;
let child: ChildProcess | undefined;
let stdout = '';
/** The kubeconfig the banner names, once the first test has read it. */
let bannerKubeconfig: string | undefined;

before(async () => {
  dataDir = join(await mkdtemp(join(tmpdir(), 'pvc-npm-start-')), '.pv-controller');
});

after(async () => {
  if (child?.pid !== undefined && child.exitCode === null) {
    const exited = new Promise((r) => child!.once('exit', r));
    process.kill(-child.pid, 'SIGTERM');
    await exited;
  }
  await rm(dirname(dataDir), { recursive: true, force: true });
});

test('npm start, then the kubectl command its banner prints, yields a Bound claim and a real directory', { skip: kubectl ? false : NO_KUBECTL, timeout: 120_000 }, async () => {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const args = pkg.scripts.start.split(/\s+/);
  assert.deepEqual(args.slice(0, 3), ['node', 'dist/src/cli/main.js', 'up'], 'the start script runs `up`');
  const dirFlag = args.indexOf('--data-dir');
  assert.ok(dirFlag > 0, 'the start script names a data dir');
  args[dirFlag + 1] = dataDir;
  child = spawn(process.execPath, [cli, ...args.slice(2)], { cwd: repoRoot, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (b: Buffer) => (stdout += b.toString()));
  child.stderr!.resume();
  await waitFor(() => /Try:/.test(stdout) && / get pvc,pv\n/.test(stdout), 'the banner', { timeoutMs: 60_000 });

  const commands = stdout.split('\n').map((l) => l.trim()).filter((l) => l.startsWith('kubectl '));
  const apply = commands.find((c) => c.includes(' apply -f '));
  assert.ok(apply, `the banner names an apply command:\n${stdout}`);
  const applyArgs = apply.split(/\s+/).slice(1);
  const kubeconfig = applyArgs[applyArgs.indexOf('--kubeconfig') + 1]!;
  const rest = applyArgs.filter((_, i) => i !== applyArgs.indexOf('--kubeconfig') && i !== applyArgs.indexOf('--kubeconfig') + 1);
  bannerKubeconfig = resolve(repoRoot, kubeconfig);
  const applied = await runKubectl(rest, resolve(repoRoot, kubeconfig));
  assert.equal(applied.code, 0, applied.stderr);

  const claim = await waitFor(async () => {
    const got = await runKubectl(['get', 'pvc', 'my-claim', '-o', 'json'], resolve(repoRoot, kubeconfig));
    if (got.code !== 0) return undefined;
    const obj = JSON.parse(got.stdout) as { status?: { phase?: string }; spec: { volumeName?: string } };
    return obj.status?.phase === 'Bound' ? obj : undefined;
  }, 'my-claim Bound', { timeoutMs: 30_000 });

  const dirs = await readdir(join(dataDir, 'volumes'));
  const expected = `kubernetes-dynamic-${claim.spec.volumeName}`;
  assert.ok(dirs.includes(expected), `a directory ${expected} exists (found ${dirs.join(', ')})`);
  const record = JSON.parse(await readFile(join(dataDir, 'volumes', '.pv-controller', `${expected}.json`), 'utf8')) as Record<string, unknown>;
  assert.match(JSON.stringify(record), /my-claim/);

  const table = await runKubectl(['get', 'pvc,pv'], resolve(repoRoot, kubeconfig));
  assert.match(table.stdout, /persistentvolumeclaim\/my-claim\s+Bound/);
});

test('npm start: a claim a pod on a node with no kubelet uses waits for the pod; deleting the pod gracefully lets the claim and its directory go', { skip: kubectl ? false : NO_KUBECTL, timeout: 120_000 }, async (t) => {
  if (!bannerKubeconfig) return t.skip('the first test did not reach the banner, so there is no server to use');
  const kc = bannerKubeconfig;
  const claim = JSON.parse((await runKubectl(['get', 'pvc', 'my-claim', '-o', 'json'], kc)).stdout) as { spec: { volumeName: string } };
  const pod = `apiVersion: v1
kind: Pod
metadata:
  name: user
spec:
  nodeName: laptop
  terminationGracePeriodSeconds: 2
  containers:
  - name: c
    image: busybox
    volumeMounts: [{ name: data, mountPath: /data }]
  volumes:
  - name: data
    persistentVolumeClaim: { claimName: my-claim }
`;
  const applied = await runKubectl(['apply', '-f', '-'], kc, { stdin: pod });
  assert.equal(applied.code, 0, applied.stderr);
  const claimDelete = await runKubectl(['delete', 'pvc', 'my-claim', '--wait=false'], kc);
  assert.equal(claimDelete.code, 0, claimDelete.stderr);
  // pvc-protection holds the claim while a scheduled pod uses it.
  const held = await runKubectl(['wait', '--for=delete', 'pvc/my-claim', '--timeout=3s'], kc);
  assert.notEqual(held.code, 0, 'the claim waits for its pod');
  const podDelete = await runKubectl(['delete', 'pod', 'user', '--timeout=30s'], kc);
  assert.equal(podDelete.code, 0, podDelete.stderr);
  const claimGone = await runKubectl(['wait', '--for=delete', 'pvc/my-claim', '--timeout=30s'], kc);
  assert.equal(claimGone.code, 0, claimGone.stderr);
  const dir = `kubernetes-dynamic-${claim.spec.volumeName}`;
  await waitFor(async () => !(await readdir(join(dataDir, 'volumes'))).includes(dir), `${dir} removed by the Delete policy`, { timeoutMs: 30_000 });
});
