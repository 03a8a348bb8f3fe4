/**
 * The informers behind the ControllerContext: one merged store and one reflector per kind the
 * controller watches (PersistentVolume, PersistentVolumeClaim, StorageClass, Pod, and Node when a
 * module asks for nodes), the rules by
 * which their changes enqueue keys, and the claims fence read when workers start.
 */
import type { Logger } from 'pino';
import type { KubeObject, Node, PersistentVolume, PersistentVolumeClaim, Pod, StorageClass } from '@pv-controller/kube/types.js';
import type { Backoff } from '../../backoff.js';
import { MergedStore } from '../../kube-client/cache/merged-store.js';
import { Reflector } from '../../kube-client/cache/reflector.js';
import { rvNumber } from '../../kube-client/cache/resource-version.js';
import { listCallFor, restListCall } from '../../kube-client/list-calls.js';
import type { InformerFactory } from './module.js';
import { paths } from '../../kube-client/paths.js';
import type { RestTransport } from '../../kube-client/transport.js';
import type { ObjectKeyString } from '@pv-controller/kube/object-key.js';

export interface Stores {
  volumes: MergedStore<PersistentVolume>;
  claims: MergedStore<PersistentVolumeClaim>;
  classes: MergedStore<StorageClass>;
  pods: MergedStore<Pod>;
  /** Filled only when `watchNodes` is set (ReflectorOptions): a central controller's node-gone. */
  nodes: MergedStore<Node>;
}

export function makeStores(): Stores {
  return {
    volumes: new MergedStore<PersistentVolume>(),
    claims: new MergedStore<PersistentVolumeClaim>(),
    classes: new MergedStore<StorageClass>(),
    pods: new MergedStore<Pod>(),
    nodes: new MergedStore<Node>(),
  };
}

export interface ReflectorOptions {
  /** Reconnect after this much silence (default 130 s). */
  inactivityMs?: number;
  /** Reconnect backoff, one per reflector. */
  backoff?: () => Backoff;
  /** Watch Nodes too (only a module that needs them: every node's heartbeat is an event). */
  watchNodes?: boolean;
}

type Watched = PersistentVolume | PersistentVolumeClaim | StorageClass | Pod | Node;

export function makeReflectors(stores: Stores, transport: RestTransport, log: Logger, o: ReflectorOptions): Reflector<never>[] {
  const make = <T extends Watched>(kind: string, path: string, store: MergedStore<T>): Reflector<never> =>
    new Reflector<T>({
      kind,
      path,
      store,
      transport,
      log: log.child({ component: 'reflector', kind }),
      ...(o.inactivityMs ? { inactivityTimeoutMs: o.inactivityMs } : {}),
      ...(o.backoff ? { backoff: o.backoff() } : {}),
    }) as unknown as Reflector<never>;
  return [
    make('PersistentVolume', paths.volumes(), stores.volumes),
    make('PersistentVolumeClaim', paths.claimsAll(), stores.claims),
    make('StorageClass', paths.storageClasses(), stores.classes),
    make('Pod', paths.podsAll(), stores.pods),
    ...(o.watchNodes ? [make('Node', paths.nodes(), stores.nodes)] : []),
  ];
}

const claimKey = (ns: string | undefined, name: string | undefined): string => `${ns ?? ''}/${name ?? ''}`;

export interface Enqueue {
  claim(key: ObjectKeyString): void;
  volume(name: string): void;
}

/**
 * Enqueue rules as upstream: a PV change enqueues the PV and, when its claimRef carries a uid and
 * that claim exists, the claim; a deleted PV enqueues the claim it pointed at; a PVC change
 * enqueues the PVC; a deleted PVC enqueues its volume; a pod change enqueues the claims it uses.
 * Own writes enqueue only the other side of a deletion (their informer echo, same
 * resourceVersion, enqueues the rest). Register after the modules' own listeners, so an index a
 * module keeps is current before its sync can run.
 */
export function wireEnqueueRules(stores: Stores, enqueue: Enqueue): void {
  stores.volumes.onChange((name, pv, prev, origin) => {
    const ref = (pv ?? prev)?.spec.claimRef;
    // A deletion wakes the other side whoever saw it first: when our own write (a finalizer
    // removed) is what deletes the object, its answer may reach the store before the watch event.
    if (!pv && ref) enqueue.claim(claimKey(ref.namespace, ref.name));
    if (origin === 'own-write') return;
    enqueue.volume(name);
    if (pv && ref?.uid && stores.claims.get(claimKey(ref.namespace, ref.name))) enqueue.claim(claimKey(ref.namespace, ref.name));
  });
  stores.claims.onChange((key, pvc, prev, origin) => {
    if (!pvc && prev?.spec.volumeName) enqueue.volume(prev.spec.volumeName);
    if (origin === 'own-write') return;
    enqueue.claim(key);
  });
  // A pod appearing, changing or going away can unblock its claims (delayed binding, protection).
  stores.pods.onChange((_key, pod, prev) => {
    const p = pod ?? prev;
    for (const v of p?.spec?.volumes ?? []) {
      if (v.persistentVolumeClaim?.claimName) enqueue.claim(claimKey(p?.metadata.namespace, v.persistentVolumeClaim.claimName));
    }
  });
}

/** The server's current resourceVersion (a one-item quorum list); undefined when it cannot be read. */
export async function readClaimsFence(transport: RestTransport, log: Logger): Promise<number | undefined> {
  try {
    const page = await listCallFor<PersistentVolumeClaim>(transport, paths.claimsAll())({ limit: 1 });
    const rv = rvNumber(page.resourceVersion);
    return rv >= 0 ? rv : undefined;
  } catch (err) {
    log.warn({ err: err instanceof Error ? err.message : String(err) }, 'could not read the claims fence; binding re-reads claims live');
    return undefined;
  }
}

/** The ModuleEnv's informer factory: a reflector per call, listing by path (restListCall), with `o`'s reconnect settings. */
export function moduleInformerFactory(transport: RestTransport, log: Logger, o: ReflectorOptions): InformerFactory {
  return <T extends KubeObject>(spec: { kind: string; apiVersion: string; path: string; store: MergedStore<T> }) =>
    new Reflector<T>({
      kind: spec.kind,
      path: spec.path,
      store: spec.store,
      transport,
      list: restListCall<T>(transport, spec.path, { apiVersion: spec.apiVersion, kind: spec.kind }),
      log: log.child({ component: 'reflector', kind: spec.kind }),
      ...(o.inactivityMs ? { inactivityTimeoutMs: o.inactivityMs } : {}),
      ...(o.backoff ? { backoff: o.backoff() } : {}),
    });
}
