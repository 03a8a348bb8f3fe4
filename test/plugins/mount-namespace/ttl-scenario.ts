/**
 * Released-volume TTLs against decoys, inside the private mount namespace: the embedded API server
 * and the controller with the real host-path plugin on the sandbox tmpfs. Forged TTLs (on a PV
 * naming another namespace's volume, and on a PV whose directory is a bind mount of the decoys)
 * delete nothing; a TTL on our own volume whose directory has the decoys mounted over it is
 * proven ours, and its delete is still refused at the mount.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { ANN_RELEASED_DEADLINE, ANN_RELEASED_TTL } from '@pv-controller/kube/annotations.js';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { HOST_PATH_PROVISIONER } from '../../../src/plugins/host-path/index.js';
import { startTestCluster } from '../../helpers/cluster.js';
import { bindMount, unmount } from '../../helpers/mount-sandbox.js';
import { TestApi } from '../../integration/provisioning-helpers.js';
import { ReclaimApi, claimFor, reclaimModules, staticVolume, waitFor } from '../../integration/reclaim-helpers.js';
import { exists, layout, type ScenarioResult } from './common.js';

async function boundVolume(api: ReclaimApi, name: string, namespace: string, cls: string): Promise<PersistentVolume> {
  const claim = claimFor(name);
  await api.createClaim({ ...claim, metadata: { name, namespace }, spec: { ...claim.spec, storageClassName: cls } });
  const bound = await waitFor(async () => {
    const c = await api.claim(name, namespace);
    return c?.status?.phase === 'Bound' ? c : undefined;
  }, `${namespace}/${name} Bound`);
  return (await api.volume(bound.spec.volumeName ?? ''))!;
}

export async function ttlForgedAndMounted(base: string): Promise<ScenarioResult> {
  const { outside, decoysIntact } = await layout(base);
  const cluster = await startTestCluster({ modules: reclaimModules(), controllerOptions: { syncPeriodMs: 300 } });
  const api = new ReclaimApi(cluster.kc);
  const classes = new TestApi(cluster.kc);
  const mounted: string[] = [];
  try {
    for (const [name, ttl] of [['kept', undefined], ['ttl', '1s']] as const) {
      await classes.createClass({
        metadata: { name, ...(ttl ? { annotations: { [ANN_RELEASED_TTL]: ttl } } : {}) },
        provisioner: HOST_PATH_PROVISIONER,
        reclaimPolicy: 'Retain',
        volumeBindingMode: 'Immediate',
      });
    }
    await api.createNamespace('other');
    const victim = await boundVolume(api, 'victim', 'other', 'kept');
    const victimFile = join(victim.spec.hostPath!.path, 'data.txt');
    await fs.writeFile(victimFile, 'victim data');
    const mountedDir = join(cluster.hostPathRoot, 'mounted');
    await fs.mkdir(mountedDir);
    bindMount(outside, mountedDir);
    mounted.push(mountedDir);
    const past = new Date(Date.now() - 3_600_000).toISOString();
    for (const [name, path] of [['forged-victim', victim.spec.hostPath!.path], ['forged-mount', mountedDir]] as const) {
      const pv = staticVolume(name, path, 'Retain', { releasedFrom: 'gone', provisionedBy: HOST_PATH_PROVISIONER });
      pv.metadata.annotations = { ...pv.metadata.annotations, [ANN_RELEASED_TTL]: '1s', [ANN_RELEASED_DEADLINE]: past };
      await api.createVolume(pv);
    }
    const own = await boundVolume(api, 'own', 'default', 'ttl');
    const ownDir = own.spec.hostPath!.path;
    bindMount(outside, ownDir);
    mounted.push(ownDir);
    await api.deleteClaim('own');
    await waitFor(async () => (await api.volume(own.metadata.name!))?.status?.phase === 'Failed', 'our own TTL volume Failed at the mount').catch(() => undefined);
    for (const name of ['forged-victim', 'forged-mount']) {
      await waitFor(async () => (await api.events(name)).some((e) => e.reason === 'ReleasedTTLRefused'), `${name} refused`).catch(() => undefined);
    }
    const events: string[] = [];
    const phases: string[] = [];
    for (const name of ['forged-victim', 'forged-mount', own.metadata.name!]) {
      const label = name === own.metadata.name ? 'own' : name;
      for (const e of await api.events(name)) events.push(`${label} ${e.type} ${e.reason}: ${e.message}`);
      phases.push(`${label}=${(await api.volume(name))?.status?.phase ?? 'gone'}`);
    }
    return {
      mountPoint: ownDir,
      events,
      phase: phases.join(' '),
      decoysIntact: await decoysIntact(),
      volumeIntact: (await exists(victimFile)) && (await api.claim('victim', 'other'))?.status?.phase === 'Bound',
    };
  } finally {
    api.close();
    classes.close();
    for (const dir of mounted) unmount(dir);
    await cluster.stop();
  }
}
