/**
 * A node agent's capacity, where kube-scheduler looks for it: one CSIStorageCapacity per
 * StorageClass of a provisioner this process serves (for its node: `nodeTopology` selects the
 * node's hostname label), with the capacity and largest volume the plugin reports, and the
 * CSIDriver named after the provisioner with `storageCapacity: true` — without which the
 * scheduler ignores the capacity objects. Refreshed every period and soon after any volume of
 * ours comes or goes; written only when a number changed. Objects for a class that is gone are
 * deleted. Each object is owned by the Node, so the garbage collector removes them with it.
 */
import { createHash } from 'node:crypto';
import type { ApiError } from '@pv-controller/kube/errors.js';
import { formatBytes } from '@pv-controller/kube/quantity.js';
import type { KubeObject, StorageClass } from '@pv-controller/kube/types.js';
import { LABEL_HOSTNAME } from '@pv-controller/kube/annotations.js';
import type { VolumePlugin } from '../../plugins/api/core.js';
import { canReportCapacity, type CapacityReporter } from '../../plugins/api/capabilities/capacity.js';
import type { ControllerContext } from '../runtime/context.js';
import type { ControllerModule, ModuleEnv, ModuleInstance } from '../runtime/module.js';
import { getOrUndefined, type ModuleRest } from '../runtime/rest-get.js';
import { periodicRefresher, refreshOnVolumeAndClassChanges } from '../runtime/refresher.js';

export const CAPACITY_PUBLISHER_MODULE_NAME = 'capacity-publisher';
const CAPACITIES = '/apis/storage.k8s.io/v1';
/** Marks our objects and says for which node (a hash: node names need not be valid label values). */
export const LABEL_CAPACITY_NODE = 'pv-controller.io/capacity-node';
export const LABEL_CAPACITY_CLASS = 'pv-controller.io/capacity-class';
const SOON_MS = 2_000;

export interface CapacityPublisherOptions {
  nodeName: string;
  /** Namespace the CSIStorageCapacity objects live in (the agent's own). */
  namespace: string;
  periodMs: number;
}

interface Capacity extends KubeObject {
  storageClassName: string;
  capacity?: string;
  maximumVolumeSize?: string;
  nodeTopology?: { matchLabels: Record<string, string> };
}

const short = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 16);

export function capacityObjectName(nodeName: string, className: string): string {
  return `pv-controller-${short(`${nodeName}\u0000${className}`)}`;
}

type Rest = ModuleRest;


class Publisher {
  private readonly capacities: string;
  private nodeUid: string | undefined;

  constructor(
    private readonly ctx: ControllerContext,
    private readonly env: ModuleEnv,
    private readonly rest: Rest,
    private readonly o: CapacityPublisherOptions,
  ) {
    this.capacities = `${CAPACITIES}/namespaces/${encodeURIComponent(o.namespace)}/csistoragecapacities`;
  }

  /** The CSIDriver of each provisioner we serve, created once when missing (never changed: it may be the operator's). */
  async ensureDrivers(plugins: VolumePlugin[]): Promise<void> {
    for (const plugin of plugins) {
      const path = `${CAPACITIES}/csidrivers/${encodeURIComponent(plugin.name)}`;
      if (await getOrUndefined(this.rest, path)) continue;
      const body = {
        apiVersion: 'storage.k8s.io/v1',
        kind: 'CSIDriver',
        metadata: { name: plugin.name },
        spec: { attachRequired: false, podInfoOnMount: false, storageCapacity: true, volumeLifecycleModes: ['Persistent'] },
      };
      await this.rest.request({ method: 'POST', verb: 'create', path: `${CAPACITIES}/csidrivers`, body }).catch((err: ApiError) => {
        if (err.code !== 409) throw err;
      });
      this.env.logger.info({ driver: plugin.name }, 'CSIDriver created so kube-scheduler reads our capacity');
    }
  }

  async publish(plugins: Array<VolumePlugin & CapacityReporter>): Promise<void> {
    const served = new Map(plugins.map((p) => [p.name, p]));
    const classes = this.ctx.classes.list().filter((c: StorageClass) => served.has(c.provisioner));
    const selector = `${LABEL_CAPACITY_NODE}=${short(this.o.nodeName)}`;
    const existing = await this.rest.request<{ items: Capacity[] }>({ method: 'GET', verb: 'list', path: this.capacities, query: { labelSelector: selector } });
    const byName = new Map(existing.items.map((c) => [c.metadata.name ?? '', c]));
    for (const cls of classes) {
      const plugin = served.get(cls.provisioner);
      if (!plugin) continue;
      const numbers = await plugin.storageCapacity({ ...(cls.parameters ?? {}) });
      const name = capacityObjectName(this.o.nodeName, cls.metadata.name ?? '');
      await this.write(byName.get(name), name, cls.metadata.name ?? '', formatBytes(numbers.capacityBytes), formatBytes(numbers.maximumVolumeBytes));
      byName.delete(name);
    }
    for (const stale of byName.keys()) {
      await this.rest.request({ method: 'DELETE', verb: 'delete', path: `${this.capacities}/${stale}` }).catch((err: ApiError) => {
        if (err.code !== 404) throw err;
      });
    }
  }

  private async write(current: Capacity | undefined, name: string, className: string, capacity: string, maximumVolumeSize: string): Promise<void> {
    if (current && current.capacity === capacity && current.maximumVolumeSize === maximumVolumeSize) return;
    if (current) {
      await this.rest.request({ method: 'PUT', verb: 'update', path: `${this.capacities}/${name}`, body: { ...current, capacity, maximumVolumeSize } });
      return;
    }
    const owner = await this.nodeOwner();
    const body: Capacity = {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'CSIStorageCapacity',
      metadata: {
        name,
        namespace: this.o.namespace,
        labels: { [LABEL_CAPACITY_NODE]: short(this.o.nodeName), [LABEL_CAPACITY_CLASS]: short(className) },
        ...(owner ? { ownerReferences: [owner] } : {}),
      },
      storageClassName: className,
      capacity,
      maximumVolumeSize,
      nodeTopology: { matchLabels: { [LABEL_HOSTNAME]: this.o.nodeName } },
    };
    await this.rest.request({ method: 'POST', verb: 'create', path: this.capacities, body });
  }

  private async nodeOwner(): Promise<{ apiVersion: string; kind: string; name: string; uid: string } | undefined> {
    this.nodeUid ??= (await getOrUndefined<KubeObject>(this.rest, `/api/v1/nodes/${encodeURIComponent(this.o.nodeName)}`))?.metadata.uid;
    return this.nodeUid ? { apiVersion: 'v1', kind: 'Node', name: this.o.nodeName, uid: this.nodeUid } : undefined;
  }
}

export function capacityPublisherModule(options: CapacityPublisherOptions): ControllerModule {
  return {
    name: CAPACITY_PUBLISHER_MODULE_NAME,
    create(ctx: ControllerContext, env: ModuleEnv): ModuleInstance {
      const plugins = env.plugins.withCapability(canReportCapacity);
      const rest = env.rest;
      if (!rest || plugins.length === 0) return {};
      const publisher = new Publisher(ctx, env, rest, options);
      const refresher = periodicRefresher({
        periodMs: options.periodMs,
        soonMs: SOON_MS,
        run: () => publisher.publish(plugins),
        prepare: () => publisher.ensureDrivers(plugins),
        logger: env.logger,
        failure: 'publishing storage capacity failed',
      });
      refreshOnVolumeAndClassChanges(env, plugins, refresher);
      return { start: refresher.start, stop: refresher.stop };
    },
  };
}
