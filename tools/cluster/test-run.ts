/**
 * `npm run test:cluster`: the controller's integration suites and the cluster tests against the
 * real control plane. Builds the binaries first when the cache lacks them and Go is here; where
 * neither is the case it says so and skips (exit 0). One etcd serves the run; each test gets its
 * own kube-apiserver on an empty prefix. Afterwards every audit log of the run is read: a request
 * of the controller's ServiceAccount that the authorizer denied fails the run, and the verbs
 * deploy/rbac.yaml grants but nobody used are listed.
 *
 * `node dist/tools/cluster/test-run.js [path-substring …]` runs a subset.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, writeFile, rm } from 'node:fs/promises';
import { findTestFiles, testName } from '../testing/test-files.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { grantedUses, summariseAudit, useKey } from './audit.js';
import { binaryPath, controlPlaneUnavailable, missingBinaries, onPath, REPO_ROOT, versions } from './binaries.js';
import { buildControlPlane } from './build.js';
import { buildCsi, staleCsiBinaries } from './csi-build.js';
import { buildLocalPath, localPathStale } from './local-path-build.js';
import { startSharedEtcd } from './control-plane.js';
import { missingNodeBinaries } from './node-binaries.js';
import { buildNodes } from './nodes-build.js';

/** The suites that drive the controller only through the API, so they mean the same on both servers. */
export const CLUSTER_SUITES = [
  'integration/binding.test.js',
  'integration/provisioning.test.js',
  'integration/provisioning-kill.test.js',
  'integration/reclaim.test.js',
  'integration/reclaim-retry.test.js',
  'integration/reclaim-safety.test.js',
  'integration/reclaim-bulk.test.js',
  'integration/protection.test.js',
  'integration/unused.test.js',
  'integration/node-gone.test.js',
  'integration/metrics.test.js',
  'integration/cli/orphans.test.js',
  'integration/orphan-metric.test.js',
  'integration/controller/leader-election.test.js',
  'integration/controller/events.test.js',
  'apiserver/integration/protobuf.test.js',
  'integration/expansion.test.js',
  'integration/expansion-kill.test.js',
  'integration/attributes-class.test.js',
  'integration/clone.test.js',
  'integration/restore.test.js',
  'integration/node-agents.test.js',
  'apiserver/integration/hostile-corpus.test.js',
  'integration/fault-rows.test.js',
  'integration/chaos.test.js',
  'apiserver/apply/ownership-of-defaults.test.js',
  'e2e/kubectl-snapshots.test.js',
  'integration/kube-client/cache/cache-transform.test.js',
  'integration/snapshots.test.js',
  'integration/snapshot-kill.test.js',
  'integration/snapshot-crds-absent.test.js',
  'cluster/multinode.test.js',
  'cluster/',
];

export const CONTROLLER_USER = 'system:serviceaccount:kube-system:pv-controller';

/**
 * Cluster tests that never run the controller as its ServiceAccount: a run of only these has no
 * audit to check. The snapshot differential runs ours as the admin, as the bench's CSI worlds do
 * (it compares behaviour; the roles are audited by the suites that run as the account). The
 * chart's upgrade on real nodes runs its release in namespace pv-upgrade (nodes-chart-upgrade.test.ts
 * says why); nodes-chart.test.ts is the audited one.
 */
const CONTROLLER_FREE = ['cluster/nodes-local-path', 'cluster/nodes-chart-upgrade', 'e2e/kubectl-snapshots', 'cluster/fidelity', 'cluster/deploy', 'cluster/bench-real', 'cluster/protobuf', 'cluster/csi-binaries', 'apiserver/integration/protobuf', 'cluster/openapi-definitions', 'cluster/snapshot-differential'];

const DIST = join(REPO_ROOT, 'dist');
const suiteName = (file: string): string => testName(DIST, file);

function runsController(files: string[]): boolean {
  return files.some((f) => !CONTROLLER_FREE.some((free) => suiteName(f).startsWith(free)));
}

function testFiles(filters: string[]): string[] {
  const out = findTestFiles(DIST);
  // A suite that moved must be renamed here, never silently dropped from the real-cluster run.
  const names = new Set(out.map(suiteName));
  const missing = CLUSTER_SUITES.filter((s) => s.endsWith('.test.js') && !names.has(s));
  if (missing.length > 0) throw new Error(`cluster suites not found (moved or renamed?): ${missing.join(', ')}`);
  const wanted = filters.length > 0 ? filters : CLUSTER_SUITES;
  return out.filter((f) => {
    const rel = suiteName(f);
    return CLUSTER_SUITES.some((s) => rel.startsWith(s) || rel === s) && wanted.some((w) => rel.includes(w));
  }).sort();
}

function runNodeTests(files: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const concurrency = process.env.TEST_CONCURRENCY ?? '2';
  const args = ['--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: 'inherit', cwd: REPO_ROOT, env });
    child.on('exit', (code, signal) => resolve(signal ? 1 : (code ?? 1)));
  });
}

async function reportAudit(dir: string, expectRequests: boolean): Promise<boolean> {
  const summary = await summariseAudit(dir, CONTROLLER_USER);
  const granted = await grantedUses(join(REPO_ROOT, 'deploy', 'rbac.yaml'));
  const unused = granted.filter((g) => !summary.used.has(useKey(g))).map(useKey);
  const lines = [
    `audit: ${summary.requests} requests by ${CONTROLLER_USER}, ${summary.denied.length} denied`,
    ...summary.denied.slice(0, 20).map((d) => `  DENIED ${d.verb} ${d.resource} ${d.uri} (${d.code})`),
    `audit: verbs used: ${[...summary.used.entries()].map(([k, n]) => `${k} ×${n}`).join(', ')}`,
    `audit: granted by deploy/rbac.yaml but never used in this run: ${unused.length ? unused.join(', ') : 'none'}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  await writeFile(join(REPO_ROOT, 'dist', 'cluster-audit.txt'), `${lines.join('\n')}\n`);
  return summary.denied.length === 0 && (summary.requests > 0 || !expectRequests);
}

async function main(): Promise<number> {
  const v = versions();
  if (missingBinaries(v).length > 0) {
    if (!onPath('go')) {
      process.stdout.write(`test:cluster: skipped: ${controlPlaneUnavailable()}\n`);
      return 0;
    }
    await buildControlPlane();
  }
  process.stdout.write(`test:cluster: Kubernetes ${v.kubernetes}, etcd ${v.etcd} from ${binaryPath('kube-apiserver')}\n`);
  const files = testFiles(process.argv.slice(2));
  if (files.length === 0) throw new Error('no cluster test files matched');
  // The CSI peers are built here too when a selected suite needs them (CI builds them beforehand,
  // in the background while `npm test` runs).
  if (files.some((f) => suiteName(f).includes('csi')) && onPath('go') && staleCsiBinaries().length > 0) await buildCsi();
  // Likewise the real nodes' kubelet, containerd and images, where a node can run at all (root).
  if (files.some((f) => suiteName(f).startsWith('cluster/nodes')) && onPath('go') && process.getuid?.() === 0 && missingNodeBinaries().length > 0) await buildNodes();
  // And local-path-provisioner for the nodes suite's side by side.
  if (files.some((f) => suiteName(f).startsWith('cluster/nodes-local-path')) && onPath('go') && localPathStale()) await buildLocalPath();
  const work = await mkdtemp(join(tmpdir(), 'pv-test-cluster-'));
  const etcd = await startSharedEtcd(join(work, 'etcd'));
  const stopEtcd = (): void => void etcd.stop();
  process.once('SIGINT', stopEtcd);
  process.once('SIGTERM', stopEtcd);
  try {
    const auditDir = join(work, 'audit');
    await mkdir(auditDir);
    const code = await runNodeTests(files, {
      // The AWS SDK's Node-version warning, once per test process (scripts/run-tests.mjs says why).
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      ...process.env,
      PV_TEST_CONTROL_PLANE: 'real',
      PV_TEST_ETCD_URL: etcd.url,
      PV_TEST_AUDIT_DIR: auditDir,
    });
    const auditOk = await reportAudit(auditDir, runsController(files));
    if (!auditOk) process.stdout.write('test:cluster: FAILED: the controller\'s ServiceAccount was denied a request (or made none)\n');
    return code !== 0 ? code : auditOk ? 0 : 1;
  } finally {
    await etcd.stop();
    await rm(work, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`test:cluster: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
    process.exit(1);
  },
);
