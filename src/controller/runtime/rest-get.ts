/** A GET by path through the module's REST access, for the kinds the ApiClient does not cover. */
import type { ApiError } from '@pv-controller/kube/errors.js';
import type { ModuleEnv } from './module.js';

export type ModuleRest = NonNullable<ModuleEnv['rest']>;

/** The object at `path`, or undefined when the server answers 404. */
export async function getOrUndefined<T>(rest: ModuleRest, path: string): Promise<T | undefined> {
  try {
    return await rest.request<T>({ method: 'GET', verb: 'get', path });
  } catch (err) {
    if ((err as ApiError).code === 404) return undefined;
    throw err;
  }
}
