/**
 * The node-gone controller as a module (`--controllers node-gone`, on by default; off with
 * `--node-gone-delay 0`): when a Node object is deleted and stays deleted for the delay, the
 * node-local volumes pinned to it are released — a Delete volume's claim is re-created to
 * provision on another node and the PV removed, leaving its data on the gone node's disk; a
 * Retain volume and its claim are kept and marked. The decisions are in sync.ts; the
 * behaviour follows sig-storage-local-static-provisioner's node cleanup controller, which
 * deletes the claim after a delay, with the clock kept in a record of the controller's own (a
 * Lease in its namespace, record.ts) instead of in memory.
 *
 * It keeps an index of node-local PVs by node from the volume feed, so a Node deleted (or back)
 * enqueues exactly its volumes, and remembers which nodes this process saw deleted.
 */
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import type { ControllerContext } from '../runtime/context.js';
import type { ControllerModule, ModuleEnv, ModuleInstance } from '../runtime/module.js';
import { localNodeOf } from './local-volume.js';
import { NodeGoneRecords } from './record.js';
import type { NodeGoneDeps } from './deps.js';
import { syncNodeGone } from './sync.js';

export const NODE_GONE_MODULE_NAME = 'node-gone';

/** The longest wait before a claim being deleted, or still used by a pod, is looked at again. */
const RECHECK_MS = 15_000;

/** Node name → names of the node-local PVs pinned to it. */
class VolumesByNode {
  private readonly byNode = new Map<string, Set<string>>();
  private readonly nodeOf = new Map<string, string>();

  update(name: string, pv: PersistentVolume | undefined): void {
    const before = this.nodeOf.get(name);
    const now = pv ? localNodeOf(pv) : undefined;
    if (before === now) return;
    if (before !== undefined) {
      this.byNode.get(before)?.delete(name);
      this.nodeOf.delete(name);
    }
    if (now !== undefined) {
      if (!this.byNode.has(now)) this.byNode.set(now, new Set());
      this.byNode.get(now)!.add(name);
      this.nodeOf.set(name, now);
    }
  }

  of(node: string): string[] {
    return [...(this.byNode.get(node) ?? [])];
  }
}

export function nodeGoneModule(): ControllerModule {
  return {
    name: NODE_GONE_MODULE_NAME,
    create(ctx: ControllerContext, env: ModuleEnv): ModuleInstance {
      const delayMs = env.options.nodeGoneDelayMs;
      if (!ctx.nodes || !env.changes.nodes || delayMs <= 0) return {};
      const volumes = new VolumesByNode();
      const deleted = new Map<string, Date>();
      env.changes.volumes.onChange((name, pv) => volumes.update(name, pv));
      env.changes.nodes.onChange((name, node, prev) => {
        if (node && prev) return; // a status heartbeat: nothing for us
        if (node) deleted.delete(name);
        else deleted.set(name, ctx.now());
        for (const pv of volumes.of(name)) ctx.enqueueVolume(pv);
      });
      const { resourceNamespace, resourceName } = env.options.leaderElection;
      const deps: NodeGoneDeps = {
        ctx,
        nodes: ctx.nodes,
        records: new NodeGoneRecords(ctx.api, resourceNamespace, resourceName, `${resourceName}/${NODE_GONE_MODULE_NAME}`),
        delayMs,
        recheckMs: Math.min(RECHECK_MS, delayMs),
        log: env.logger,
        deletedAt: (node) => deleted.get(node),
      };
      return { syncVolume: (pv) => syncNodeGone(deps, pv) };
    },
  };
}
