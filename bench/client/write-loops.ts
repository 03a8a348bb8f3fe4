/**
 * The write loops of the API-server scenario: create PersistentVolumes as fast as `concurrency`
 * in-flight requests allow, through client-node (the controller's kind of client), through a
 * raw https keep-alive request (to see what the client itself costs), or through the same raw
 * request in protobuf (client-go's and kubectl's wire form; the body encoded once per write, as
 * a client does).
 */
import type { V1PersistentVolume } from '@kubernetes/client-node';
import { encodeObject } from '@pv-controller/apiserver/protobuf/envelope.js';
import { writeLoopVolume } from '../fixtures.js';
import { startProgress } from '../progress.js';
import { expectOk, type BenchClient } from './kube-client.js';
import { runPool, type PoolResult } from './pool.js';

export type ClientKind = 'client-node' | 'raw-https' | 'raw-protobuf';

export const CLIENT_KINDS: readonly ClientKind[] = ['client-node', 'raw-https'];

export function volumeWriter(client: BenchClient, kind: ClientKind): (name: string) => Promise<void> {
  if (kind === 'client-node') {
    return async (name) => {
      await client.core.createPersistentVolume({ body: writeLoopVolume(name) as V1PersistentVolume });
    };
  }
  if (kind === 'raw-protobuf') {
    return async (name) => {
      const body = encodeObject(writeLoopVolume(name) as unknown as Record<string, unknown>);
      expectOk(await client.raw('POST', '/api/v1/persistentvolumes', body), 'create PV (protobuf)');
    };
  }
  return async (name) => {
    expectOk(await client.raw('POST', '/api/v1/persistentvolumes', JSON.stringify(writeLoopVolume(name))), 'create PV');
  };
}

export interface WriteLoopSpec {
  label: string;
  /** Name prefix, unique per loop, e.g. "bench-<run>-r2-memory-cn". */
  prefix: string;
  warmup: number;
  count: number;
  concurrency: number;
}

/** Warm-up writes (unmeasured: JIT, TLS sessions, sockets), then the measured loop. */
export async function measureCreates(client: BenchClient, kind: ClientKind, spec: WriteLoopSpec): Promise<PoolResult> {
  const write = volumeWriter(client, kind);
  await runPool(spec.warmup, spec.concurrency, (i) => write(`${spec.prefix}-warm-${i}`));
  const progress = startProgress(spec.label, spec.count, 'writes');
  try {
    return await runPool(spec.count, spec.concurrency, (i) => write(`${spec.prefix}-${i}`), progress);
  } finally {
    progress.finish();
  }
}

/** Deletes what a loop created (used against real clusters, which outlive the bench). */
export async function deleteCreated(client: BenchClient, spec: WriteLoopSpec): Promise<void> {
  const names = [
    ...Array.from({ length: spec.warmup }, (_, i) => `${spec.prefix}-warm-${i}`),
    ...Array.from({ length: spec.count }, (_, i) => `${spec.prefix}-${i}`),
  ];
  await runPool(names.length, spec.concurrency, async (i) => {
    const res = await client.raw('DELETE', `/api/v1/persistentvolumes/${names[i]}`);
    if (res.status !== 404) expectOk(res, `delete ${names[i]}`);
  });
}
