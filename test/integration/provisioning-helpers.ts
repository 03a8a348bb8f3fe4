/**
 * Shared by the provisioning integration tests: a tiny REST client for the embedded server, a
 * host-path plugin wrapper that can be held after it created the directory (to delete the claim
 * or stop the controller at exactly that moment), and wait-for-condition.
 */
import { access } from 'node:fs/promises';
import { paths } from '../../src/kube-client/paths.js';
import { FINALIZER_PVC_PROTECTION } from '@pv-controller/kube/annotations.js';
import type { CoreEvent, PersistentVolume, PersistentVolumeClaim, StorageClass } from '@pv-controller/kube/types.js';
import type { MetricsProvider } from '../../src/metrics/provider.js';
import type { DeleteRequest, ProvisionedVolume, ProvisionRequest, VolumePlugin } from '../../src/plugins/api/core.js';
import type { ParameterProblem } from '../../src/plugins/api/errors.js';
import { TestRestClient } from '../helpers/rest-client.js';
import { waitFor } from '../helpers/wait.js';

export { waitFor };

export async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/**
 * Waits until a deleted claim is gone, as far as this controller's part goes: removed, or held
 * only by pvc-protection (removed by that controller when it runs, and never ours to touch).
 */
export async function claimLeft(api: TestApi, ns: string, name: string): Promise<void> {
  await waitFor(async () => {
    const claim = await api.claim(ns, name);
    if (!claim) return true;
    const left = (claim.metadata.finalizers ?? []).filter((f) => f !== FINALIZER_PVC_PROTECTION);
    return claim.metadata.deletionTimestamp !== undefined && left.length === 0;
  }, `claim ${ns}/${name} to be gone`);
}

/** The few calls the tests make, over the same HTTPS the controller uses. */
export class TestApi extends TestRestClient {
  createClass(sc: StorageClass): Promise<StorageClass> {
    return this.create(paths.storageClasses(), 'storage.k8s.io/v1', 'StorageClass', sc);
  }

  createClaim(pvc: PersistentVolumeClaim): Promise<PersistentVolumeClaim> {
    return this.create(paths.claims(pvc.metadata.namespace ?? 'default'), 'v1', 'PersistentVolumeClaim', pvc);
  }

  /** Changes claim `ns/name` on its newest copy, retrying on 409 Conflict (see `modify`). */
  modifyClaim(ns: string, name: string, change: (pvc: PersistentVolumeClaim) => PersistentVolumeClaim): Promise<PersistentVolumeClaim> {
    return this.modify(paths.claim(ns, name), change);
  }

  updateClaim(pvc: PersistentVolumeClaim): Promise<PersistentVolumeClaim> {
    return this.update(paths.claim(pvc.metadata.namespace ?? 'default', pvc.metadata.name ?? ''), pvc);
  }

  claim(ns: string, name: string): Promise<PersistentVolumeClaim | undefined> {
    return this.getOrUndefined(paths.claim(ns, name));
  }

  deleteClaim(ns: string, name: string): Promise<void> {
    return this.remove(paths.claim(ns, name));
  }

  volume(name: string): Promise<PersistentVolume | undefined> {
    return this.getOrUndefined(paths.volume(name));
  }

  volumes(): Promise<PersistentVolume[]> {
    return this.list(paths.volumes());
  }

  /** Events about one object, by involved object name. */
  eventsFor(ns: string, name: string): Promise<CoreEvent[]> {
    return this.eventsAbout(ns, name);
  }

  async eventReasons(ns: string, name: string): Promise<string[]> {
    return (await this.eventsFor(ns, name)).map((e) => e.reason ?? '');
  }

  /**
   * Waits until every reason in `wanted` has been recorded about the object, and returns all its
   * reasons. Events are written beside the status writes a test waits for, not before them.
   */
  async eventsRecorded(ns: string, name: string, wanted: string[]): Promise<string[]> {
    let seen: string[] = [];
    try {
      return await waitFor(async () => {
        seen = await this.eventReasons(ns, name);
        return wanted.every((reason) => seen.includes(reason)) ? seen : undefined;
      }, `events ${wanted.join(', ')} about ${ns}/${name}`);
    } catch (err) {
      throw new Error(`${(err as Error).message}; recorded: ${seen.join(', ') || 'none'}`, { cause: err });
    }
  }
}

export interface Hold {
  reached: Promise<ProvisionRequest>;
  release(): void;
}

/** Provision calls held at a point of a test's choosing: the next call waits there until released. */
export class ProvisionHolds {
  private holds: { arrived: (req: ProvisionRequest) => void; gate: Promise<void> }[] = [];

  /** Holds the next call that passes `pass`. */
  next(): Hold {
    let arrived!: (req: ProvisionRequest) => void;
    let release!: () => void;
    const reached = new Promise<ProvisionRequest>((resolve) => (arrived = resolve));
    const gate = new Promise<void>((resolve) => (release = resolve));
    this.holds.push({ arrived, gate });
    return { reached, release };
  }

  /** Where a call may be held: returns at once unless a hold is waiting for it. */
  async pass(req: ProvisionRequest): Promise<void> {
    const hold = this.holds.shift();
    if (!hold) return;
    hold.arrived(req);
    await hold.gate;
  }
}

/**
 * A plugin that behaves exactly like the one it wraps, except that a provision call can be held
 * *after* the wrapped plugin created the volume and before the answer returns: the moment a
 * controller crash or a claim deletion leaks volumes in other provisioners.
 */
export class HoldablePlugin implements VolumePlugin {
  readonly name: string;
  readonly maxBackingNameLength: number;
  provisionCalls = 0;
  private readonly holds = new ProvisionHolds();

  /** `name` serves the wrapped plugin under another provisioner name. */
  constructor(
    private readonly inner: VolumePlugin,
    name?: string,
  ) {
    this.name = name ?? inner.name;
    this.maxBackingNameLength = inner.maxBackingNameLength;
  }

  holdNextProvision(): Hold {
    return this.holds.next();
  }

  validateParameters(parameters: Record<string, string>): ParameterProblem[] {
    return this.inner.validateParameters(parameters);
  }
  handles(pv: PersistentVolume): boolean {
    return this.inner.handles(pv);
  }
  async provision(req: ProvisionRequest): Promise<ProvisionedVolume> {
    this.provisionCalls++;
    const result = await this.inner.provision(req);
    await this.filled(req, result);
    await this.holds.pass(req);
    return result;
  }
  /** Between the volume's creation and the hold: where a subclass fills the new volume. */
  protected async filled(_req: ProvisionRequest, _made: ProvisionedVolume): Promise<void> {}
  delete(req: DeleteRequest): Promise<void> {
    return this.inner.delete(req);
  }
  metricsFor(pv: PersistentVolume): MetricsProvider {
    return this.inner.metricsFor(pv);
  }
}
