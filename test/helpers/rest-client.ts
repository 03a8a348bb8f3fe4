/**
 * The base of the integration tests' small REST clients (TestApi, ReclaimApi): the same HTTPS
 * transport the controller uses, unthrottled, with GET-or-undefined and typed create / update /
 * delete / list. Each suite's client adds the few calls it makes, in its own signatures.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { RestTransport } from '../../src/kube-client/transport.js';
import { paths } from '../../src/kube-client/paths.js';
import { isConflict, isNotFound } from '@pv-controller/kube/errors.js';
import type { CoreEvent, KubeObject, ObjectList } from '@pv-controller/kube/types.js';

export class TestRestClient {
  protected readonly transport: RestTransport;

  constructor(kc: KubeConfig) {
    this.transport = new RestTransport(kc, { qps: 0, burst: 0 });
  }

  close(): void {
    this.transport.close();
  }

  /** POSTs `body` with its apiVersion and kind set. */
  protected create<T extends object>(path: string, apiVersion: string, kind: string, body: T): Promise<T> {
    return this.transport.request({ method: 'POST', verb: 'create', path, body: { apiVersion, kind, ...body } });
  }

  protected update<T>(path: string, body: T): Promise<T> {
    return this.transport.request({ method: 'PUT', verb: 'update', path, body });
  }

  /** The object, or undefined when the server answers 404. */
  protected async getOrUndefined<T>(path: string): Promise<T | undefined> {
    try {
      return await this.transport.request<T>({ method: 'GET', verb: 'get', path });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /**
   * Read, change, write `path`, again from a fresh read when the write meets 409 Conflict — what
   * client-go's retry.RetryOnConflict does (5 tries) and what a test must do to an object the
   * controllers also write. A claim just seen Bound is still written: the provisioner takes its
   * in-flight finalizer off once the PV exists (after the binder, when the binder was quicker),
   * and pvc-unused adds the Unused condition. The full test:cluster run of stop 34 failed three
   * expansion tests on exactly that 409.
   */
  protected async modify<T extends KubeObject>(path: string, change: (obj: T) => T, tries = 5): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const live = await this.getOrUndefined<T>(path);
      if (!live) throw new Error(`${path}: not found`);
      try {
        return await this.update(path, change(live));
      } catch (err) {
        if (!isConflict(err) || attempt >= tries) throw err;
      }
    }
  }

  protected async remove(path: string): Promise<void> {
    await this.transport.request({ method: 'DELETE', verb: 'delete', path });
  }

  protected async list<T extends KubeObject>(path: string): Promise<T[]> {
    return (await this.transport.request<ObjectList<T>>({ method: 'GET', verb: 'list', path })).items;
  }

  /** Events in `ns` whose involved object is named `name`. */
  protected async eventsAbout(ns: string, name: string): Promise<CoreEvent[]> {
    return (await this.list<CoreEvent>(paths.events(ns))).filter((e) => (e.involvedObject as { name?: string } | undefined)?.name === name);
  }
}
