/**
 * The plugin a conformance subject shows the suite, without its snapshot members: main's snapshot
 * sub-suite (test/plugins/conformance/snapshot.ts) is a placeholder that fails every plugin
 * claiming the capability, and is being rewritten on another branch. The cloud plugins' snapshot
 * contract is tested in their own snapshot test files until the rewritten sub-suite lands and the
 * lead adds them to it as subjects (then this view goes).
 */
import { SNAPSHOT } from '../../src/plugins/api/capabilities/snapshot.js';
import type { VolumePlugin } from '../../src/plugins/api/core.js';

const HIDDEN: ReadonlySet<string | symbol> = new Set([...SNAPSHOT.members, 'supportsClone']);

export function withoutSnapshot(plugin: VolumePlugin): VolumePlugin {
  return new Proxy(plugin, {
    get(target, key) {
      if (HIDDEN.has(key)) return undefined;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
    has: (target, key) => !HIDDEN.has(key) && Reflect.has(target, key),
  });
}
