/**
 * The whole reclaim flow on a volume whose directory is a bind mount of the decoy directory: the
 * embedded API server and the controller with the real host-path plugin, on the sandbox tmpfs.
 * The refusal must end the PV Failed with one Warning naming the mount, as one attempt.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { ANN_RECLAIM_FAILED_ATTEMPTS } from '@pv-controller/kube/annotations.js';
import { HOST_PATH_PROVISIONER } from '../../../src/plugins/host-path/index.js';
import { startTestCluster } from '../../helpers/cluster.js';
import { bindMount, unmount } from '../../helpers/mount-sandbox.js';
import { ReclaimApi, reclaimModules, staticVolume, waitFor } from '../../integration/reclaim-helpers.js';
import { layout, type ScenarioResult } from './common.js';

export async function reclaimFlowRefusesMount(base: string): Promise<ScenarioResult> {
  const { outside, decoysIntact } = await layout(base);
  const cluster = await startTestCluster({ modules: reclaimModules(), controllerOptions: { syncPeriodMs: 300 } });
  const api = new ReclaimApi(cluster.kc);
  const vol = join(cluster.hostPathRoot, 'mounted');
  await fs.mkdir(vol);
  bindMount(outside, vol);
  try {
    await api.createVolume(staticVolume('mounted', vol, 'Delete', { releasedFrom: 'gone', provisionedBy: HOST_PATH_PROVISIONER }));
    const failed = await waitFor(async () => {
      const pv = await api.volume('mounted');
      return pv?.status?.phase === 'Failed' ? pv : undefined;
    }, 'the PV to be Failed').catch(() => undefined);
    const pv = failed ?? (await api.volume('mounted'));
    const events = (await api.events('mounted')).map((e) => `${e.type} ${e.reason}: ${e.message}`);
    return {
      mountPoint: vol,
      phase: `${pv?.status?.phase ?? 'gone'} attempts=${pv?.metadata.annotations?.[ANN_RECLAIM_FAILED_ATTEMPTS] ?? ''}`,
      events,
      decoysIntact: await decoysIntact(),
    };
  } finally {
    api.close();
    unmount(vol);
    await cluster.stop();
  }
}
