/**
 * What `pv-controller orphans` runs (orphans.ts defines its flags): the scan for backing volumes
 * and stray files no PV or claim refers to, the report, and `--delete`.
 */
import { listAllPages, listCallFor } from '../kube-client/list-calls.js';
import { RestTransport } from '../kube-client/transport.js';
import { loadKubeConfig } from '../kube-client/kubeconfig.js';
import { paths } from '../kube-client/paths.js';
import {
  type ClusterObjects,
  createControllerLogger,
  deleteOrphans,
  findOrphans,
  findStrayFiles,
  type FoundStrayFile,
  type Orphan,
  type OrphanDeletion,
  removeStrayFiles,
} from '../controller/index.js';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import type { VolumePlugin } from '../plugins/api/core.js';
import { buildPluginRegistry, type PluginSettings } from '../plugins/from-options.js';
import type { PluginFlags } from './plugin-flags.js';

export interface OrphansFlags extends PluginFlags {
  kubeconfig?: string;
  dataDir?: string;
  delete?: boolean;
  clusterName: string;
  logFormat: 'json' | 'text';
  v?: string;
}

/** Claims and PVs read live through the kubeconfig. */
function liveCluster(transport: RestTransport): ClusterObjects {
  return {
    listClaims: async () => (await listAllPages(listCallFor<PersistentVolumeClaim>(transport, paths.claimsAll()))).items,
    listVolumes: async () => (await listAllPages(listCallFor<PersistentVolume>(transport, paths.volumes()))).items,
  };
}

export async function runOrphans(flags: OrphansFlags, settings: PluginSettings, logLevel: string): Promise<number> {
  const logger = createControllerLogger(flags.logFormat, logLevel);
  const plugins = (await buildPluginRegistry(settings, logger)).all();
  const transport = new RestTransport(loadKubeConfig(flags.kubeconfig), { qps: 20, burst: 30 });
  try {
    const cluster = liveCluster(transport);
    const scan = await findOrphans(plugins, flags.clusterName, cluster);
    const strays = await findStrayFiles(plugins);
    for (const failure of scan.failures) {
      process.stderr.write(`pv-controller orphans: ${failure.plugin}: cannot list backing volumes: ${failure.message}\n`);
    }
    for (const failure of strays.failures) {
      process.stderr.write(`pv-controller orphans: ${failure.plugin}: cannot list stray files: ${failure.message}\n`);
    }
    if (scan.scannedPlugins.length === 0 && scan.failures.length === 0) {
      process.stderr.write('pv-controller orphans: no plugin to scan: give --cloud-provider, --host-path-root or --nfs-mount\n');
      return 2;
    }
    if (scan.orphans.length === 0) process.stderr.write(`No orphaned volumes found (${scan.scannedPlugins.join(', ')}).\n`);
    else process.stdout.write(renderTable(['PLUGIN', 'NAME', 'ID', 'CLAIM', 'PV'], scan.orphans.map(orphanRow)));
    printStrayFiles(strays.files, scan.orphans.length > 0);
    let failed = scan.failures.length > 0 || strays.failures.length > 0;
    if (flags.delete && scan.orphans.length > 0) {
      const results = await deleteOrphans(scan.orphans, plugins, flags.clusterName, cluster, { logger });
      process.stdout.write(`\n${renderTable(['PLUGIN', 'NAME', 'ID', 'RESULT'], results.map(deletionRow))}`);
      failed ||= results.some((r) => r.outcome === 'failed' || r.outcome === 'still-present');
    }
    if (flags.delete && strays.files.length > 0) failed = (await removeStrays(plugins, strays.files)) || failed;
    return failed ? 1 : 0;
  } finally {
    transport.close();
  }
}

function printStrayFiles(files: FoundStrayFile[], afterOrphans: boolean): void {
  if (files.length === 0) return;
  const rows = files.map(({ plugin, file }) => [plugin, file.path, file.modifiedAt.toISOString()]);
  process.stdout.write(`${afterOrphans ? '\n' : ''}${renderTable(['PLUGIN', 'STRAY FILE', 'MODIFIED'], rows)}`);
  process.stderr.write(
    'Stray files are temporary files a killed write left behind, not volumes: the controller removes them when it starts, ' +
      '--delete removes them now (except those modified in the last minute, which may be a write in progress).\n',
  );
}

/** `--delete` for stray files: the plugins remove what they may; prints each; true when one failed. */
async function removeStrays(plugins: VolumePlugin[], files: FoundStrayFile[]): Promise<boolean> {
  const removed = await removeStrayFiles(plugins);
  const gone = new Set(removed.files.map(({ file }) => file.path));
  const rows = files.map(({ plugin, file }) => [
    plugin,
    file.path,
    gone.has(file.path) ? 'removed' : file.removable ? 'not removed' : 'kept: modified in the last minute (may be a write in progress)',
  ]);
  process.stdout.write(`\n${renderTable(['PLUGIN', 'STRAY FILE', 'RESULT'], rows)}`);
  for (const failure of removed.failures) {
    process.stderr.write(`pv-controller orphans: ${failure.plugin}: cannot remove stray files: ${failure.message}\n`);
  }
  return removed.failures.length > 0;
}

function orphanRow({ plugin, volume }: Orphan): string[] {
  const claim = volume.claimName ? `${volume.claimNamespace ?? ''}/${volume.claimName}` : '<none>';
  return [plugin, volume.backingName, volume.id, claim, volume.pvName ?? '<none>'];
}

function deletionRow(result: OrphanDeletion): string[] {
  const { plugin, volume } = result.orphan;
  const text: Record<OrphanDeletion['outcome'], string> = {
    deleted: 'deleted',
    referenced: `kept: now referenced by ${result.detail ?? 'the cluster'}`,
    'still-present': `not deleted: ${result.detail ?? ''}`,
    failed: `failed: ${result.detail ?? ''}`,
  };
  return [plugin, volume.backingName, volume.id, text[result.outcome]];
}

/** kubectl-style columns: left-aligned, three spaces apart. */
export function renderTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] + 3))).join('').trimEnd();
  return [header, ...rows].map(line).join('\n') + '\n';
}
