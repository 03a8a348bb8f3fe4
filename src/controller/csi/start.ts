/**
 * Connecting the CSI drivers `--csi-address` names: for each socket, connect, wait until Probe says
 * ready (a driver's controller container often starts after ours), and build its plugin — named by
 * the driver itself (GetPluginInfo), with capabilities from ControllerGetCapabilities. All sockets
 * are connected before the controller starts, so a claim of a driver's class is never taken for one
 * no plugin serves; a socket that never becomes ready fails the start with its path named.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { connectCsi, waitForDriver } from '../../csi/client.js';
import { CsiCallMetrics } from '../../csi/metrics.js';
import type { CsiConnection } from '../../csi/types.js';
import { createCsiPlugin } from '../../plugins/csi/index.js';
import type { VolumePlugin } from '../../plugins/api/core.js';
import type { CsiSettings } from '../../plugins/from-options.js';
import { csiKubeDeps } from './kube-deps.js';
import { loadProvenance } from '../provenance/key.js';

export interface RunningCsiPlugins {
  plugins: VolumePlugin[];
  /** Closes every driver connection and the Secret/topology reader. */
  close(): void;
}

/** `registry`: where the sidecars' csi_sidecar_operations_seconds goes (the controller's /metrics). */
export async function startCsiPlugins(settings: CsiSettings, kc: KubeConfig, logger: Logger, registry?: Registry): Promise<RunningCsiPlugins> {
  const metrics = registry ? new CsiCallMetrics(registry) : undefined;
  const deps = csiKubeDeps(kc);
  const connections: CsiConnection[] = [];
  const close = (): void => {
    for (const conn of connections) conn.close();
    deps.close();
  };
  try {
    const state = settings.state ?? { namespace: 'kube-system', name: 'pv-controller' };
    const provenance = await loadProvenance(kc, state.namespace, state.name);
    const plugins: VolumePlugin[] = [];
    for (const address of settings.addresses) {
      const log = logger.child({ csiAddress: address });
      const conn = await connectCsi(address, { timeoutMs: settings.callTimeoutMs, logger: log, ...(metrics ? { metrics } : {}) });
      connections.push(conn);
      const info = await waitForDriver(conn, { deadlineMs: settings.probeTimeoutMs, logger: log });
      const plugin = await createCsiPlugin(conn, {
        clusterName: settings.clusterName ?? 'kubernetes',
        secrets: deps.secrets,
        topology: deps.topology,
        logger: log.child({ plugin: info.name }),
        timeoutMs: settings.callTimeoutMs,
        strictTopology: settings.strictTopology,
        provenance,
      });
      log.info({ driver: info.name, vendorVersion: info.vendorVersion }, 'CSI driver connected');
      plugins.push(plugin);
    }
    return { plugins, close };
  } catch (err) {
    close();
    throw err;
  }
}
