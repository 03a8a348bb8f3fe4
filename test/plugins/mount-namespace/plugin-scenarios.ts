/**
 * Delete and recycle through the real host-path and nfs-subdir plugins, with mounts on and inside
 * volumes: a bind mount of the decoy directory from the same filesystem, a tmpfs, a bind mount on
 * a parent below the root; and a root that is itself a mount point, which must keep working.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import type { ProvisionRequest } from '../../../src/plugins/api/core.js';
import { HostPathPlugin } from '../../../src/plugins/host-path/index.js';
import { NfsSubdirPlugin } from '../../../src/plugins/nfs-subdir/index.js';
import { bindMount, mountTmpfs } from '../../helpers/mount-sandbox.js';
import { attempt, exists, hostPathPv, layout, type ScenarioResult } from './common.js';

/** Delete and recycle of a host-path volume whose directory (or something inside it) is a mount. */
async function hostPathAttempts(root: string, vol: string): Promise<Pick<ScenarioResult, 'delete' | 'recycle'>> {
  const plugin = new HostPathPlugin({ roots: [root] });
  const pv = hostPathPv('pv-mounted', vol);
  return {
    delete: await attempt(() => plugin.delete({ backingName: 'vol', pv })),
    recycle: await attempt(() => plugin.recycle(pv)),
  };
}

export async function bindOnVolume(base: string): Promise<ScenarioResult> {
  const { root, outside, decoysIntact } = await layout(base);
  const vol = join(root, 'vol');
  await fs.mkdir(vol);
  bindMount(outside, vol);
  return { mountPoint: vol, ...(await hostPathAttempts(root, vol)), decoysIntact: await decoysIntact() };
}

export async function bindNested(base: string): Promise<ScenarioResult> {
  const { root, outside, decoysIntact } = await layout(base);
  const vol = join(root, 'vol');
  const inner = join(vol, 'data', 'in ner\\dir');
  await fs.mkdir(inner, { recursive: true });
  await fs.writeFile(join(vol, 'a-own-file.txt'), 'volume data');
  await fs.writeFile(join(vol, 'data', 'b-own-file.txt'), 'volume data');
  bindMount(outside, inner);
  const attempts = await hostPathAttempts(root, vol);
  const volumeIntact = (await exists(join(vol, 'a-own-file.txt'))) && (await exists(join(vol, 'data', 'b-own-file.txt')));
  return { mountPoint: inner, ...attempts, decoysIntact: await decoysIntact(), volumeIntact };
}

export async function tmpfsOnVolume(base: string): Promise<ScenarioResult> {
  const { root, decoysIntact } = await layout(base);
  const vol = join(root, 'vol');
  await fs.mkdir(vol);
  mountTmpfs(vol);
  await fs.mkdir(join(vol, 'dir'));
  await fs.writeFile(join(vol, 'dir', 'on-tmpfs.txt'), 'other filesystem');
  const attempts = await hostPathAttempts(root, vol);
  const tmpfsIntact = (await fs.readFile(join(vol, 'dir', 'on-tmpfs.txt'), 'utf8').catch(() => '')) === 'other filesystem';
  return { mountPoint: vol, ...attempts, decoysIntact: (await decoysIntact()) && tmpfsIntact };
}

function provisionRequest(backingName: string, parameters: Record<string, string>): ProvisionRequest {
  return {
    backingName,
    clusterName: 'kubernetes',
    pvName: backingName.slice('kubernetes-dynamic-'.length),
    claim: { name: 'data', namespace: 'default', uid: 'uid-1', labels: {}, annotations: {} },
    requestBytes: 1n << 30n,
    accessModes: ['ReadWriteOnce'],
    volumeMode: 'Filesystem',
    parameters,
    mountOptions: [],
  };
}

/**
 * nfs-subdir with a pathPattern parent that is a bind mount below the mount root: delete and
 * recycle of a volume in it are refused, and so is provisioning a new one there.
 */
export async function parentCrossesMount(base: string): Promise<ScenarioResult> {
  const { root, outside, decoysIntact } = await layout(base);
  const team = join(root, 'team');
  await fs.mkdir(team);
  await fs.mkdir(join(outside, 'vol'));
  await fs.writeFile(join(outside, 'vol', 'precious.txt'), 'do not delete');
  bindMount(outside, team);
  const plugin = new NfsSubdirPlugin({ mounts: [{ server: 'nfs.test', share: '/exports', mountPath: root }] });
  const pv: PersistentVolume = {
    metadata: { name: 'pv-team', annotations: { 'pv.kubernetes.io/provisioned-by': 'pv-controller.io/nfs-subdir' } },
    spec: { nfs: { server: 'nfs.test', path: '/exports/team/vol' }, persistentVolumeReclaimPolicy: 'Delete' },
  };
  const result: ScenarioResult = {
    mountPoint: team,
    delete: await attempt(() => plugin.delete({ backingName: 'vol', pv })),
    recycle: await attempt(() => plugin.recycle(pv)),
    provision: await attempt(async () => void (await plugin.provision(provisionRequest('kubernetes-dynamic-pvc-new', { pathPattern: 'team' })))),
    decoysIntact: false,
  };
  const untouched = (await fs.readdir(outside)).sort().join(',') === 'precious.txt,tree,vol';
  result.decoysIntact = (await decoysIntact()) && (await exists(join(outside, 'vol', 'precious.txt'))) && untouched;
  return result;
}

/** The root itself is a mount point (its own filesystem): volumes in it recycle and delete. */
export async function rootIsMount(base: string): Promise<ScenarioResult> {
  const { root, decoysIntact } = await layout(base);
  mountTmpfs(root);
  const vol = join(root, 'vol');
  await fs.mkdir(join(vol, 'sub'), { recursive: true });
  await fs.writeFile(join(vol, 'sub', 'data.txt'), 'user data');
  const plugin = new HostPathPlugin({ roots: [root] });
  const pv = hostPathPv('pv-root-mount', vol);
  const recycle = await attempt(() => plugin.recycle(pv));
  const volumeEntries = await fs.readdir(vol);
  const del = await attempt(() => plugin.delete({ backingName: 'vol', pv }));
  return { mountPoint: root, recycle, delete: del, volumeEntries, volumeGone: !(await exists(vol)), decoysIntact: await decoysIntact() };
}

