/** What every node-gone decision is given. */
import type { Logger } from 'pino';
import type { Node } from '@pv-controller/kube/types.js';
import type { ControllerContext, ObjectStore } from '../runtime/context.js';
import type { NodeGoneRecords } from './record.js';

export interface NodeGoneDeps {
  ctx: ControllerContext;
  nodes: ObjectStore<Node>;
  /** The controller's own records of the PVs whose node it saw deleted (record.ts). */
  records: NodeGoneRecords;
  /** `--node-gone-delay` in ms (> 0). */
  delayMs: number;
  /** How long to wait before looking again at a claim being deleted or still in use. */
  recheckMs: number;
  log: Logger;
  /**
   * When this process saw the Node object go (a watched deletion, or a relist without it);
   * undefined when it did not. A node merely absent is not gone: a PV may name a node that never
   * had a Node object (a controller run with --node-name against a server without kubelets).
   */
  deletedAt(node: string): Date | undefined;
}
