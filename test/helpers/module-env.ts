/**
 * A ModuleEnv for unit tests of a ControllerModule: `module.create(fake.ctx, testModuleEnv(...))`
 * with a FakeCluster (fake-context.ts) as the context. Pass `changes: fakeChanges(fake)` for a
 * module that keeps an index from store changes; the logger is silent.
 */
import { pino } from 'pino';
import type { ChangeListener } from '../../src/kube-client/cache/merged-store.js';
import type { ChangeSource, ModuleEnv } from '../../src/controller/runtime/module.js';
import type { ControllerOptions } from '../../src/controller/options.js';
import type { KubeObject, Node, PersistentVolume, PersistentVolumeClaim, Pod, StorageClass } from '@pv-controller/kube/types.js';
import { PluginRegistry } from '../../src/plugins/registry.js';
import type { FakeCluster, FakeKind } from './fake-context.js';

const noChanges = { onChange: () => undefined };

export function testModuleEnv(options: ControllerOptions, overrides: Partial<ModuleEnv> = {}): ModuleEnv {
  return {
    options,
    plugins: new PluginRegistry(),
    logger: pino({ level: 'silent' }),
    changes: { volumes: noChanges, claims: noChanges, classes: noChanges },
    ...overrides,
  };
}

/** The fake cluster's cache changes as the stores' change feeds (every change counts as the informer's). */
export function fakeChanges(fake: FakeCluster): ModuleEnv['changes'] {
  return {
    volumes: feedOf<PersistentVolume>(fake, 'PersistentVolume'),
    claims: feedOf<PersistentVolumeClaim>(fake, 'PersistentVolumeClaim'),
    classes: feedOf<StorageClass>(fake, 'StorageClass'),
    nodes: feedOf<Node>(fake, 'Node'),
    pods: feedOf<Pod>(fake, 'Pod'),
  };
}

function feedOf<T extends KubeObject>(fake: FakeCluster, kind: FakeKind): ChangeSource<T> {
  const held = new Map<string, T>();
  return {
    onChange(listener: ChangeListener<T>) {
      fake.onCacheChange((changed, key, obj) => {
        if (changed !== kind) return;
        const prev = held.get(key);
        if (obj) held.set(key, obj as T);
        else held.delete(key);
        listener(key, obj as T | undefined, prev, 'informer');
      });
    },
  };
}
