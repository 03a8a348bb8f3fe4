/**
 * What `pv-controller controller` runs once its flags are parsed (controller.ts): the plugins, the
 * controller, and the shutdown on SIGTERM/SIGINT or a lost lease.
 */
import { type ControllerOptions, createControllerLogger, defaultModules, startController } from '../controller/index.js';
import { loadKubeConfig } from '../kube-client/kubeconfig.js';
import { ControllerMetrics } from '../metrics/prometheus.js';
import type { PluginSettings } from '../plugins/from-options.js';
import { startPlugins } from './plugin-start.js';

export async function runController(opts: ControllerOptions, settings: PluginSettings): Promise<void> {
  const logger = createControllerLogger(opts.logFormat, opts.logLevel);
  const kubeConfig = loadKubeConfig(opts.kubeconfig);
  // One registry for the controller's metrics and the CSI calls' (csi_sidecar_operations_seconds).
  const metrics = new ControllerMetrics();
  metrics.collectProcessMetrics();
  const { plugins, close: closePlugins } = await startPlugins(settings, kubeConfig, logger, metrics.registry);
  const running = await startController(opts, { logger, plugins, modules: defaultModules(), kubeConfig, metrics }).catch((err: unknown) => {
    closePlugins();
    throw err;
  });
  const shutDown = async (): Promise<void> => {
    await running.stop();
    closePlugins();
  };
  const stop = (signal: string): void => {
    logger.info({ signal }, 'shutting down');
    void shutDown().then(() => process.exit(0));
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  await running.lost;
  logger.error('leader election lost');
  await shutDown();
  process.exit(1);
}
