/**
 * One run of the delete-walk bench (main.ts starts it): builds the tree in a fresh host-path
 * volume of a temporary root, deletes the volume through the plugin of the build named by its
 * first argument, and prints wall time, CPU and peak RSS as JSON. The tree is removed with
 * GNU rm whatever happened.
 */
import { closeSync, openSync, promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import type { VolumePlugin } from '../../src/plugins/api/core.js';
import { buildChain, removeDeepTree } from '../../test/helpers/deep-tree.js';

const [dist, kind, count] = process.argv.slice(2);
const n = Number(count);
const { HostPathPlugin } = (await import(join(dist, 'src/plugins/host-path/index.js'))) as {
  HostPathPlugin: new (o: { roots: string[] }) => VolumePlugin;
};

const base = await fs.realpath(await fs.mkdtemp(join(tmpdir(), 'pvc-delete-walk-')));
try {
  const root = join(base, 'root');
  await fs.mkdir(root);
  const plugin = new HostPathPlugin({ roots: [root] });
  const backingName = 'bench-dynamic-pv-1';
  const claim = { name: 'c', namespace: 'bench', uid: 'u-1', labels: {}, annotations: {} };
  const provisioned = await plugin.provision({
    backingName, clusterName: 'bench', pvName: 'pv-1', claim, requestBytes: 1n << 30n,
    accessModes: ['ReadWriteOnce'], volumeMode: 'Filesystem', parameters: {}, mountOptions: [],
  });
  const pv: PersistentVolume = { metadata: { name: 'pv-1' }, spec: { ...provisioned.source, persistentVolumeReclaimPolicy: 'Delete' } };
  const dir = pv.spec.hostPath!.path;
  if (kind === 'chain') buildChain(dir, n);
  else {
    await fs.mkdir(join(dir, 'wide'));
    for (let i = 0; i < n; i++) closeSync(openSync(join(dir, 'wide', String(i).padStart(255, 'n')), 'w'));
  }
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  await plugin.delete({ backingName, pv });
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  const used = process.cpuUsage(cpu);
  const gone = await fs.lstat(dir).then(() => false, () => true);
  if (!gone) throw new Error(`the delete reported success but "${dir}" is still there`);
  const maxRssMb = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(JSON.stringify({ ok: true, wallMs, cpuMs: (used.user + used.system) / 1000, maxRssMb }));
} finally {
  removeDeepTree(base);
}
