/**
 * The sized-volume bench, run only inside a private mount namespace (bench/scenarios/sized-volumes.ts
 * starts it through runInMountNamespace): on a tmpfs of its own, N sized host-path volumes are
 * provisioned (loop-mounted ext4 images) and filled like the du bench's volumes, then one usage
 * pass over them (statfs) and one over N plain directories with the same files (du), then all
 * sized volumes are deleted. Prints one JSON object.
 */
import { promises as fs, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { VolumeUsageCollector } from '../../src/metrics/collector.js';
import { pluginUsageSource } from '../../src/metrics/observability.js';
import { HostPathPlugin } from '../../src/plugins/host-path/index.js';
import { PluginRegistry } from '../../src/plugins/registry.js';
import type { ProvisionRequest } from '../../src/plugins/api/core.js';
import { enterSandbox, mountTmpfs } from '../../test/helpers/mount-sandbox.js';

const FILES = 100;
const FILE_BYTES = 4096;
const USER_HZ = 100;

/** CPU of reaped children (du), seconds: cutime + cstime of /proc/self/stat. */
function childCpu(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / USER_HZ;
}

function request(i: number): ProvisionRequest {
  const pvName = `pv-${i}`;
  return {
    backingName: `bench-dynamic-${pvName}`, clusterName: 'bench', pvName,
    claim: { name: `c-${i}`, namespace: 'bench', uid: `u-${i}`, labels: {}, annotations: {} },
    requestBytes: 16n * 1024n * 1024n, accessModes: ['ReadWriteOnce'], volumeMode: 'Filesystem', parameters: { sizing: 'image' }, mountOptions: [],
  };
}

async function fill(dir: string): Promise<void> {
  const payload = Buffer.alloc(FILE_BYTES, 1);
  await Promise.all(Array.from({ length: FILES }, (_, f) => fs.writeFile(join(dir, `f${f}`), payload)));
}

function pair(i: number, path: string): { pv: PersistentVolume; pvc: PersistentVolumeClaim } {
  return {
    pv: { metadata: { name: `pv-${i}`, uid: `pv-u-${i}` }, spec: { capacity: { storage: '16Mi' }, hostPath: { path }, claimRef: { namespace: 'bench', name: `c-${i}`, uid: `u-${i}` } }, status: { phase: 'Bound' } },
    pvc: { metadata: { name: `c-${i}`, namespace: 'bench', uid: `u-${i}` }, spec: { volumeName: `pv-${i}` }, status: { phase: 'Bound' } },
  };
}

async function usagePass(plugin: HostPathPlugin, pairs: Array<{ pv: PersistentVolume; pvc: PersistentVolumeClaim }>) {
  const volumes = new Map(pairs.map((p) => [p.pv.metadata.name ?? '', p.pv]));
  const claims = new Map(pairs.map((p) => [`bench/${p.pvc.metadata.name}`, p.pvc]));
  const lister = <T,>(m: Map<string, T>) => ({ get: (k: string) => m.get(k), list: () => [...m.values()] });
  const collector = new VolumeUsageCollector({ volumes: lister(volumes), claims: lister(claims), source: pluginUsageSource(new PluginRegistry([plugin])), periodMs: 0 });
  const cpu0 = process.cpuUsage();
  const child0 = childCpu();
  const summary = await collector.collectOnce();
  const cpu = process.cpuUsage(cpu0);
  return { wallSeconds: summary.seconds, selfCpuSeconds: (cpu.user + cpu.system) / 1e6, childCpuSeconds: childCpu() - child0, measured: summary.measured };
}

const count = Number(process.argv[2] ?? 1000);
const sandbox = enterSandbox();
const sizedRoot = join(sandbox, 'sized');
const plainRoot = join(sandbox, 'plain');
await fs.mkdir(sizedRoot);
await fs.mkdir(plainRoot);
mountTmpfs(sizedRoot, '8g');
mountTmpfs(plainRoot, '2g');
const sized = new HostPathPlugin({ roots: [sizedRoot], overcommitRatio: 1000 });
const plain = new HostPathPlugin({ roots: [plainRoot] });

let t0 = performance.now();
const sizedPairs = [];
for (let i = 0; i < count; i++) {
  const made = await sized.provision(request(i));
  sizedPairs.push(pair(i, made.source.hostPath?.path ?? ''));
}
const provisionSeconds = (performance.now() - t0) / 1000;
for (const p of sizedPairs) await fill(p.pv.spec.hostPath?.path ?? '');
const plainPairs = [];
for (let i = 0; i < count; i++) {
  const dir = join(plainRoot, `pv-${i}`);
  await fs.mkdir(dir);
  await fill(dir);
  plainPairs.push(pair(i, dir));
}
const statfs = [];
const du = [];
for (let pass = 0; pass < 3; pass++) {
  statfs.push(await usagePass(sized, sizedPairs));
  du.push(await usagePass(plain, plainPairs));
}
t0 = performance.now();
for (const p of sizedPairs) await sized.delete({ backingName: `bench-dynamic-${p.pv.metadata.name}`, pv: p.pv });
const deleteSeconds = (performance.now() - t0) / 1000;
process.stdout.write(JSON.stringify({ count, provisionSeconds, deleteSeconds, statfs, du }));
