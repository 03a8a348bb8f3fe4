/**
 * Run by node-agents-expansion.test.ts inside a private mount namespace (never on its own): the
 * embedded server and the central controller (no host-path plugin) in this process, and two
 * `pv-controller node-agent` processes (n1, n2) as children, so the loop mounts the agents make
 * are in this namespace and visible here. A sized claim placed on n1 is provisioned, written
 * into, grown with a merge patch and deleted; prints what it saw as JSON.
 */
import type { ChildProcess } from 'node:child_process';
import { promises as fs, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { ANN_SELECTED_NODE } from '@pv-controller/kube/annotations.js';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { IMAGE_DIR } from '../../src/plugins/host-path/image-volume.js';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';
import { enterSandbox } from '../helpers/mount-sandbox.js';
import { waitFor } from '../helpers/wait.js';
import { AgentsApi, createAgentClass, resizeEvents, startAgents, stopAgent } from './node-agent-helpers.js';

const MIB = 1024 * 1024;
const KEPT = 'written before the claim grew';

const mebibytes = (path: string): number => {
  const s = statfsSync(path);
  return Math.round((s.blocks * s.bsize) / MIB);
};

/** Writes `mib` MiB into `path`; 'ok' or the error's code (ENOSPC past the size). */
async function fill(path: string, mib: number): Promise<string> {
  return fs.writeFile(path, Buffer.alloc(mib * MIB, 1)).then(
    () => 'ok',
    (err: NodeJS.ErrnoException) => err.code ?? err.message,
  );
}

async function setUp(cluster: TestCluster, api: AgentsApi, agents: ChildProcess[]): Promise<Record<string, string>> {
  const roots = await startAgents(cluster, api, ['n1', 'n2'], agents);
  await createAgentClass(api, 'sized', { allowVolumeExpansion: true, parameters: { sizing: 'image' } });
  return roots;
}

async function scenario(api: AgentsApi, roots: Record<string, string>): Promise<Record<string, unknown>> {
  await api.post('/api/v1/namespaces/default/persistentvolumeclaims', 'v1', 'PersistentVolumeClaim', {
    metadata: { name: 'data', namespace: 'default', annotations: { [ANN_SELECTED_NODE]: 'n1' } },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '20Mi' } }, storageClassName: 'sized' },
  });
  const bound = await api.claimWhen('data', 'to be Bound', (c) => c.status?.phase === 'Bound');
  const pvName = bound.spec.volumeName ?? '';
  const path = (await api.get<PersistentVolume>(`/api/v1/persistentvolumes/${pvName}`))?.spec.local?.path ?? '';
  await fs.writeFile(join(path, 'kept.txt'), KEPT);
  const before = { capacityMiB: mebibytes(path), tooMuch: await fill(join(path, 'big'), 24) };
  await fs.rm(join(path, 'big'), { force: true });

  await api.growClaim('data', '40Mi');
  const grown = await api.claimWhen('data', 'to say 40Mi', (c) => c.status?.capacity?.storage === '40Mi');
  const pv = await api.get<PersistentVolume>(`/api/v1/persistentvolumes/${pvName}`);
  const result = {
    before,
    underN1: path.startsWith(`${roots.n1}/`),
    pvCapacity: pv?.spec.capacity?.storage,
    allocated: grown.status?.allocatedResources?.storage,
    resizeStatus: grown.status?.allocatedResourceStatuses?.storage ?? null,
    // The expander's conditions: the central controller's pvc-unused adds Unused, which is not one.
    conditions: (grown.status?.conditions ?? []).map((c) => c.type).filter((t) => t !== 'Unused'),
    resizer: grown.metadata.annotations?.['volume.kubernetes.io/storage-resizer'],
    events: await resizeEvents(api, 'data', 'VolumeResizeSuccessful'),
    capacityMiB: mebibytes(path),
    kept: await fs.readFile(join(path, 'kept.txt'), 'utf8'),
    moreFits: await fill(join(path, 'big'), 24),
  };
  await api.delete('/api/v1/namespaces/default/persistentvolumeclaims/data');
  await waitFor(async () => ((await api.get(`/api/v1/persistentvolumes/${pvName}`)) ? undefined : true), 'the PV to be deleted', { timeoutMs: 60_000 });
  const images = await fs.readdir(join(roots.n1, IMAGE_DIR)).catch(() => []);
  return { ...result, imagesLeft: images, n2Left: (await fs.readdir(roots.n2)).filter((n) => !n.startsWith('.')) };
}

async function main(): Promise<void> {
  enterSandbox();
  const cluster = await startTestCluster({ noHostPath: true });
  const api = new AgentsApi(cluster.kc);
  const agents: ChildProcess[] = [];
  let result: Record<string, unknown>;
  try {
    result = await scenario(api, await setUp(cluster, api, agents));
  } catch (err) {
    result = { error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  } finally {
    await Promise.all(agents.map(stopAgent));
    api.close();
    // A scenario that failed half-way may leave a volume mounted: it goes with this namespace.
    await cluster.stop().catch(() => undefined);
  }
  process.stdout.write(JSON.stringify(result));
}

await main();
