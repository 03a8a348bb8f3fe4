/**
 * Storage capacity of the CSI drivers this process drives, where kube-scheduler looks for it
 * (external-provisioner's `--enable-capacity`, KEP-1472): for every StorageClass a driver serves
 * and every topology segment of the nodes running it (CSINode topology keys + Node labels), one
 * CSIStorageCapacity with GetCapacity's answer for that class's parameters and segment. A driver
 * without topology gets one object per class whose empty nodeTopology matches every node.
 *
 * The objects live in the controller's namespace, carry external-provisioner's labels
 * (`csi.storage.k8s.io/drivername`, `csi.storage.k8s.io/managed-by`, ours: pv-controller), are
 * refreshed every period and soon after a class or a volume of the driver changes, written only
 * when a number changed, and deleted when their class or segment is gone. Each is owned by the
 * controller's Deployment (found from POD_NAME / POD_NAMESPACE, the Pod's owners walked up as
 * external-provisioner's `--capacity-ownerref-level=2` does), so uninstalling removes them; without
 * those variables (`up`, a controller outside a Pod) they are unowned.
 */
import { createHash } from 'node:crypto';
import type { ApiError } from '@pv-controller/kube/errors.js';
import { formatBytes } from '@pv-controller/kube/quantity.js';
import type { KubeObject, Node, OwnerReference, StorageClass } from '@pv-controller/kube/types.js';
import type { VolumePlugin } from '../../plugins/api/core.js';
import { canReportCapacity, type CapacityReporter } from '../../plugins/api/capabilities/capacity.js';
import { distinctSegments, type CsiNodeInfo } from '../csi/kube-deps.js';
import type { ControllerContext } from '../runtime/context.js';
import type { ControllerModule, ModuleEnv, ModuleInstance } from '../runtime/module.js';
import { getOrUndefined, type ModuleRest } from '../runtime/rest-get.js';
import { periodicRefresher, refreshOnVolumeAndClassChanges } from '../runtime/refresher.js';

export const CSI_CAPACITY_MODULE_NAME = 'csi-capacity';
export const LABEL_CSI_DRIVER_NAME = 'csi.storage.k8s.io/drivername';
export const LABEL_CSI_MANAGED_BY = 'csi.storage.k8s.io/managed-by';
const MANAGED_BY = 'pv-controller';
const STORAGE = '/apis/storage.k8s.io/v1';
const SOON_MS = 2_000;

export interface CsiCapacityOptions {
  /** How often every object is refreshed (external-provisioner's --capacity-poll-interval, 1m). */
  periodMs?: number;
  /** The Pod this process runs in, for the owner reference (default: POD_NAME / POD_NAMESPACE). */
  pod?: { name: string; namespace: string };
}

type Rest = ModuleRest;
type CsiCapacityPlugin = VolumePlugin & CapacityReporter;
type Segment = Record<string, string>;

interface Capacity extends KubeObject {
  storageClassName: string;
  capacity?: string;
  maximumVolumeSize?: string;
  nodeTopology?: { matchLabels?: Record<string, string> };
}

export function csiCapacityObjectName(driver: string, className: string, segment: Segment | undefined): string {
  const key = JSON.stringify([driver, className, segment ? Object.entries(segment).sort(([a], [b]) => (a < b ? -1 : 1)) : null]);
  return `csisc-${createHash('sha256').update(key).digest('hex').slice(0, 20)}`;
}


/** The controlling owner of `obj`, when it has one. */
const controllerOf = (obj: KubeObject | undefined): OwnerReference | undefined => obj?.metadata.ownerReferences?.find((o) => o.controller === true);

/** The Deployment above the Pod (Pod → ReplicaSet → Deployment), else the highest owner found, else the Pod. */
export async function findOwner(rest: Rest, pod: { name: string; namespace: string }): Promise<OwnerReference | undefined> {
  const ns = encodeURIComponent(pod.namespace);
  const self = await getOrUndefined<KubeObject>(rest, `/api/v1/namespaces/${ns}/pods/${encodeURIComponent(pod.name)}`);
  if (!self?.metadata.uid) return undefined;
  let owner: OwnerReference = { apiVersion: 'v1', kind: 'Pod', name: pod.name, uid: self.metadata.uid };
  const replicaSet = controllerOf(self);
  if (replicaSet?.kind !== 'ReplicaSet') return replicaSet ?? owner;
  owner = replicaSet;
  const rs = await getOrUndefined<KubeObject>(rest, `/apis/apps/v1/namespaces/${ns}/replicasets/${encodeURIComponent(replicaSet.name)}`).catch(() => undefined);
  const deployment = controllerOf(rs);
  return deployment?.kind === 'Deployment' ? deployment : owner;
}

class CsiCapacityPublisher {
  private readonly collection: string;
  private owner: OwnerReference | undefined;

  constructor(
    private readonly ctx: ControllerContext,
    private readonly env: ModuleEnv,
    private readonly rest: Rest,
    private readonly plugins: CsiCapacityPlugin[],
  ) {
    this.collection = `${STORAGE}/namespaces/${encodeURIComponent(env.options.leaderElection.resourceNamespace)}/csistoragecapacities`;
  }

  async findOwner(pod: { name: string; namespace: string } | undefined): Promise<void> {
    if (!pod) return;
    this.owner = await findOwner(this.rest, pod).catch((err: unknown) => {
      this.env.logger.warn({ err: (err as Error).message }, 'cannot find the Deployment to own CSIStorageCapacity objects: they stay unowned');
      return undefined;
    });
  }

  /** Every segment of the nodes whose CSINode lists the driver; [undefined] when none does (a driver without topology). */
  private async segments(driver: string): Promise<Array<Segment | undefined>> {
    const [csiNodes, nodes] = await Promise.all([
      this.rest.request<{ items: CsiNodeInfo[] }>({ method: 'GET', verb: 'list', path: `${STORAGE}/csinodes` }),
      this.rest.request<{ items: Node[] }>({ method: 'GET', verb: 'list', path: '/api/v1/nodes' }),
    ]);
    const segments = distinctSegments(csiNodes.items, nodes.items, driver);
    return segments.length > 0 ? segments : [undefined];
  }

  async publish(): Promise<void> {
    for (const plugin of this.plugins) await this.publishDriver(plugin);
  }

  private async publishDriver(plugin: CsiCapacityPlugin): Promise<void> {
    const driver = plugin.name;
    const classes = this.ctx.classes.list().filter((c: StorageClass) => this.env.plugins.byProvisioner(c.provisioner) === plugin);
    const selector = `${LABEL_CSI_DRIVER_NAME}=${driver},${LABEL_CSI_MANAGED_BY}=${MANAGED_BY}`;
    const existing = await this.rest.request<{ items: Capacity[] }>({ method: 'GET', verb: 'list', path: this.collection, query: { labelSelector: selector } });
    const stale = new Map(existing.items.map((c) => [c.metadata.name ?? '', c]));
    const segments = classes.length > 0 ? await this.segments(driver) : [];
    for (const cls of classes) {
      for (const segment of segments) {
        const name = csiCapacityObjectName(driver, cls.metadata.name ?? '', segment);
        const numbers = await plugin.storageCapacity({ ...(cls.parameters ?? {}) }, segment);
        await this.write(stale.get(name), name, driver, cls.metadata.name ?? '', segment, numbers);
        stale.delete(name);
      }
    }
    for (const name of stale.keys()) {
      await this.rest.request({ method: 'DELETE', verb: 'delete', path: `${this.collection}/${name}` }).catch((err: ApiError) => {
        if (err.code !== 404) throw err;
      });
    }
  }

  private async write(
    current: Capacity | undefined,
    name: string,
    driver: string,
    className: string,
    segment: Segment | undefined,
    numbers: { capacityBytes: bigint; maximumVolumeBytes?: bigint },
  ): Promise<void> {
    const capacity = formatBytes(numbers.capacityBytes);
    const maximumVolumeSize = numbers.maximumVolumeBytes !== undefined && numbers.maximumVolumeBytes > 0n ? formatBytes(numbers.maximumVolumeBytes) : undefined;
    if (current && current.capacity === capacity && current.maximumVolumeSize === maximumVolumeSize) return;
    if (current) {
      const next: Capacity = { ...current, capacity };
      if (maximumVolumeSize === undefined) delete next.maximumVolumeSize;
      else next.maximumVolumeSize = maximumVolumeSize;
      await this.rest.request({ method: 'PUT', verb: 'update', path: `${this.collection}/${name}`, body: next });
      return;
    }
    const body: Capacity = {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'CSIStorageCapacity',
      metadata: {
        name,
        namespace: this.env.options.leaderElection.resourceNamespace,
        labels: { [LABEL_CSI_DRIVER_NAME]: driver, [LABEL_CSI_MANAGED_BY]: MANAGED_BY },
        ...(this.owner ? { ownerReferences: [{ ...this.owner, controller: true }] } : {}),
      },
      storageClassName: className,
      capacity,
      ...(maximumVolumeSize !== undefined ? { maximumVolumeSize } : {}),
      nodeTopology: { matchLabels: { ...(segment ?? {}) } },
    };
    await this.rest.request({ method: 'POST', verb: 'create', path: this.collection, body });
  }
}

function podFromEnvironment(): { name: string; namespace: string } | undefined {
  const name = process.env.POD_NAME;
  const namespace = process.env.POD_NAMESPACE;
  return name && namespace ? { name, namespace } : undefined;
}

export function csiCapacityModule(options: CsiCapacityOptions = {}): ControllerModule {
  const periodMs = options.periodMs ?? 60_000;
  return {
    name: CSI_CAPACITY_MODULE_NAME,
    create(ctx: ControllerContext, env: ModuleEnv): ModuleInstance {
      // Only CSI drivers (a plugin named after its driver); node agents publish their own capacity.
      const plugins = env.plugins.withCapability(canReportCapacity).filter((p) => p.csiDriver !== undefined && p.csiDriver === p.name);
      const rest = env.rest;
      if (!rest || plugins.length === 0) return {};
      const publisher = new CsiCapacityPublisher(ctx, env, rest, plugins);
      const refresher = periodicRefresher({
        periodMs,
        soonMs: SOON_MS,
        run: () => publisher.publish(),
        prepare: () => publisher.findOwner(options.pod ?? podFromEnvironment()),
        logger: env.logger,
        failure: 'publishing CSI storage capacity failed',
      });
      refreshOnVolumeAndClassChanges(env, plugins, refresher);
      return { start: refresher.start, stop: refresher.stop };
    },
  };
}
