/**
 * Starts the plugins the flags chose (plugin-flags.ts): the CSI drivers connected and the cloud
 * plugin's node-zone resolver. Loaded only when a command runs, never for `--help`: it pulls in the
 * controller, client-node and the cloud SDKs.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import type { Logger } from 'pino';
import { startCsiPlugins, topologyFromKubeConfig } from '../controller/index.js';
import { buildPluginRegistry, type PluginSettings } from '../plugins/from-options.js';
import type { PluginRegistry } from '../plugins/registry.js';

/** The plugins a controller process serves, and what must be closed with it. */
export interface RunningPlugins {
  plugins: PluginRegistry;
  /** Closes the CSI drivers' connections and the cloud plugin's node-zone resolver (keep-alive connections). */
  close(): void;
}

/**
 * The plugins `settings` name: the CSI drivers of `--csi-address` connected (each waited for until
 * ready) and a cloud plugin given a TopologyResolver reading nodes through its own client on `kc`.
 * `settings` comes from pluginSettingsFromFlags (checked before anything starts); CSI calls are
 * measured into `registry` (the controller's).
 */
export async function startPlugins(settings: PluginSettings, kc: KubeConfig, logger: Logger, registry?: Registry): Promise<RunningPlugins> {
  const closers: Array<() => void> = [];
  const close = (): void => {
    for (const closeOne of closers.splice(0)) closeOne();
  };
  try {
    let { extra = [], cloud } = settings;
    if (settings.csi) {
      const csi = await startCsiPlugins(settings.csi, kc, logger, registry);
      closers.push(csi.close);
      extra = [...extra, ...csi.plugins];
    }
    if (cloud) {
      const zones = topologyFromKubeConfig(kc);
      closers.push(zones.close);
      cloud = { ...cloud, topology: zones.topology };
    }
    const plugins = await buildPluginRegistry({ ...settings, extra, ...(cloud ? { cloud } : {}) }, logger);
    return { plugins, close };
  } catch (err) {
    close();
    throw err;
  }
}
