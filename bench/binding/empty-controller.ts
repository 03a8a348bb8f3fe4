/**
 * The controller's RSS with (almost) nothing to cache, the base its per-object cost is measured
 * from: on a fresh server of the same kind, the namespace, the classes and one canary pair, the
 * controller started and proven live by binding the canary, then its peak RSS (VmHWM) read.
 * The bind rows give (loaded peak − this) / cached PVs and claims.
 */
import { connect, currentResourceVersion } from '../client/kube-client.js';
import { controllerAlive } from '../proc/controller.js';
import type { BenchServer } from '../proc/servers.js';
import { bindCanary, type LaunchController } from './bind-run.js';
import { trackBound } from './bound-watch.js';
import { createAvailableVolumes, ensureNamespaceAndClasses } from './setup.js';

export async function measureEmptyControllerRss(server: BenchServer, runId: string, launch: LaunchController): Promise<number | null> {
  const client = await connect(server.kubeconfig);
  try {
    await ensureNamespaceAndClasses(client, runId);
    await createAvailableVolumes(client, runId, 1, 1, 'empty controller');
    const tracker = await trackBound(client, await currentResourceVersion(client));
    const controller = await launch(server.kubeconfig);
    try {
      await bindCanary(client, runId, 0, tracker, controllerAlive(controller));
      return controller.peakRss();
    } finally {
      tracker.stop();
      await controller.stop();
    }
  } finally {
    client.close();
  }
}
