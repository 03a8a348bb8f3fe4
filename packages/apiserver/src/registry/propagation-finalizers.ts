/**
 * The finalizers a delete asks the garbage collector for, as kube-apiserver's store sets them
 * (deletionFinalizersForGarbageCollection): propagationPolicy Orphan (or orphanDependents) adds
 * "orphan", Foreground adds "foregroundDeletion", Background takes both off; without a policy the
 * object keeps the one it has. garbage-collection.ts acts on them.
 */
import { FINALIZER_DELETE_DEPENDENTS, FINALIZER_ORPHAN_DEPENDENTS } from '@pv-controller/kube/annotations.js';

interface PropagationOptions {
  propagationPolicy?: string;
  orphanDependents?: boolean;
  /** DefaultGarbageCollectionPolicy is OrphanDependents (core/v1 ReplicationControllers). */
  orphansByDefault?: boolean;
}

const GC_FINALIZERS = [FINALIZER_ORPHAN_DEPENDENTS, FINALIZER_DELETE_DEPENDENTS];

export const isGarbageCollectorFinalizer = (f: string): boolean => GC_FINALIZERS.includes(f);

/** shouldOrphanDependents and shouldDeleteDependents: the policy asked for, else the finalizer the object has. */
function wanted(finalizers: string[], opts: PropagationOptions): { orphan: boolean; foreground: boolean } {
  if (opts.orphanDependents !== undefined) return { orphan: opts.orphanDependents, foreground: false };
  switch (opts.propagationPolicy) {
    case 'Orphan': return { orphan: true, foreground: false };
    case 'Foreground': return { orphan: false, foreground: true };
    case 'Background': return { orphan: false, foreground: false };
  }
  const orphan = finalizers.includes(FINALIZER_ORPHAN_DEPENDENTS);
  const foreground = !orphan && finalizers.includes(FINALIZER_DELETE_DEPENDENTS);
  return { orphan: orphan || (!foreground && opts.orphansByDefault === true), foreground };
}

/** The finalizers a delete leaves on the object; undefined when they do not change. */
export function finalizersForPropagation(finalizers: string[], opts: PropagationOptions): string[] | undefined {
  const { orphan, foreground } = wanted(finalizers, opts);
  const next = finalizers.filter((f) => !GC_FINALIZERS.includes(f));
  if (orphan) next.push(FINALIZER_ORPHAN_DEPENDENTS);
  if (foreground) next.push(FINALIZER_DELETE_DEPENDENTS);
  const present = new Set(finalizers);
  const same = next.length === present.size && next.every((f) => present.has(f));
  return same ? undefined : next;
}

