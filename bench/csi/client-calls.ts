/**
 * What the CSI client costs per call, against a floor: CreateVolume + DeleteVolume pairs to the
 * fake driver (test/csi/fake-driver-main.ts, a child process on a unix socket), by
 *   client  connectCsi with the sidecars' metrics on: conversions, validation, deadline,
 *           error classing, the histogram (what the controller runs)
 *   floor   a bare grpc-js generic client with protobufjs fromObject/encode/decode of the same
 *           messages, nothing else: the least any JS CSI client does
 * one pair at a time and --workers pairs in flight; variants interleaved, order rotated each
 * repetition. Reports pairs/s and this process's CPU per pair (µs, user + system), medians over
 * repetitions, and the median of same-repetition ratios to the floor.
 *
 *   node <out>/bench/csi/client-calls.js [--reps 5] [--pairs 2000] [--workers 16]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client, credentials, Metadata } from '@grpc/grpc-js';
import type protobuf from 'protobufjs';
import { Registry } from 'prom-client';
import { connectCsi, CsiCallMetrics, waitForDriver } from '../../src/csi/client.js';
import { csiRoot } from '../../src/csi/descriptor.js';
import type { CreateVolumeRequest, CsiConnection } from '../../src/csi/types.js';
import { compiled } from '../paths.js';
import { startChild } from '../proc/child.js';
import { runPool } from '../client/pool.js';
import { formatNumber, formatRatio, median, medianOfRatios } from '../stats.js';

type Pair = (n: number) => Promise<void>;

interface Variant {
  name: string;
  pair: Pair;
  close(): void;
}

const GiB = 2n ** 30n;
const request = (n: number): CreateVolumeRequest => ({
  name: `pv-bench-${n}`,
  capacityRange: { requiredBytes: GiB },
  volumeCapabilities: [{ mount: { fsType: 'ext4' }, accessMode: 'SINGLE_NODE_WRITER' }],
  parameters: { type: 'ssd', 'csi.storage.k8s.io/pvc/name': `claim-${n}`, 'csi.storage.k8s.io/pvc/namespace': 'bench', 'csi.storage.k8s.io/pv/name': `pv-bench-${n}` },
  secrets: {},
});

function clientVariant(conn: CsiConnection): Variant {
  return {
    name: 'client',
    pair: async (n) => {
      const volume = await conn.controller.createVolume(request(n));
      await conn.controller.deleteVolume({ volumeId: volume.volumeId, secrets: {} });
    },
    close: () => conn.close(),
  };
}

function floorVariant(socketPath: string): Variant {
  const client = new Client(`unix://${socketPath}`, credentials.createInsecure());
  const type = (name: string): protobuf.Type => csiRoot().lookupType(`csi.v1.${name}`);
  const [createReq, createRes, deleteReq, deleteRes] = ['CreateVolumeRequest', 'CreateVolumeResponse', 'DeleteVolumeRequest', 'DeleteVolumeResponse'].map(type);
  const id = (b: Buffer): Buffer => b;
  const call = (path: string, req: protobuf.Type, res: protobuf.Type, body: Record<string, unknown>): Promise<protobuf.Message> =>
    new Promise((resolve, reject) => {
      const bytes = Buffer.from(req.encode(req.fromObject(body)).finish());
      client.makeUnaryRequest<Buffer, Buffer>(path, id, id, bytes, new Metadata(), { deadline: Date.now() + 30_000 }, (err, value) =>
        err ? reject(err) : resolve(res.decode(value ?? Buffer.alloc(0))),
      );
    });
  return {
    name: 'floor',
    pair: async (n) => {
      const r = request(n);
      const created = (await call('/csi.v1.Controller/CreateVolume', createReq, createRes, {
        name: r.name,
        capacity_range: { required_bytes: String(GiB) },
        volume_capabilities: [{ mount: { fs_type: 'ext4' }, access_mode: { mode: 'SINGLE_NODE_WRITER' } }],
        parameters: r.parameters,
      })) as unknown as { volume: { volume_id: string } };
      await call('/csi.v1.Controller/DeleteVolume', deleteReq, deleteRes, { volume_id: created.volume.volume_id });
    },
    close: () => client.close(),
  };
}

async function measure(variant: Variant, pairs: number, workers: number, offset: number): Promise<{ perSecond: number; cpuUs: number }> {
  const cpu = process.cpuUsage();
  const { perSecond } = await runPool(pairs, workers, (i) => variant.pair(offset + i));
  const used = process.cpuUsage(cpu);
  return { perSecond, cpuUs: (used.user + used.system) / pairs };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { reps: { type: 'string', default: '5' }, pairs: { type: 'string', default: '2000' }, workers: { type: 'string', default: '16' } } });
  const reps = Number(values.reps);
  const pairs = Number(values.pairs);
  const workers = Number(values.workers);
  const dir = mkdtempSync(join(tmpdir(), 'csi-bench-'));
  const socketPath = join(dir, 'csi.sock');
  const child = startChild({ label: 'fake-csi-driver', script: compiled('test/csi/fake-driver-main.js'), args: [socketPath, '--name', 'bench.csi.pv-controller.io', '--quiet'], logDir: dir });
  const variants: Variant[] = [];
  try {
    const conn = await connectCsi(socketPath, { metrics: new CsiCallMetrics(new Registry()) });
    await waitForDriver(conn, { deadlineMs: 30_000 });
    variants.push(clientVariant(conn), floorVariant(socketPath));
    const results = new Map<string, { perSecond: number[]; cpuUs: number[] }>();
    let offset = 0;
    for (const variant of variants) await measure(variant, Math.min(200, pairs), 4, (offset += 1_000_000)); // warm-up
    for (let rep = 0; rep < reps; rep++) {
      const order = rep % 2 === 0 ? variants : [...variants].reverse();
      for (const concurrency of [1, workers]) {
        for (const variant of order) {
          const r = await measure(variant, pairs, concurrency, (offset += 1_000_000));
          const key = `${variant.name} ${concurrency}`;
          const row = results.get(key) ?? { perSecond: [], cpuUs: [] };
          row.perSecond.push(r.perSecond);
          row.cpuUs.push(r.cpuUs);
          results.set(key, row);
        }
      }
    }
    console.log(`CreateVolume+DeleteVolume pairs, ${pairs} per run, ${reps} repetitions (medians); client CPU is this process only`);
    console.log('variant  in flight  pairs/s  CPU µs/pair  CPU vs floor');
    for (const [key, row] of results) {
      const [name, concurrency] = key.split(' ');
      const floor = results.get(`floor ${concurrency}`);
      console.log(
        `${name.padEnd(8)} ${concurrency.padStart(9)} ${formatNumber(median(row.perSecond)).padStart(8)} ${formatNumber(median(row.cpuUs)).padStart(12)} ${formatRatio(floor ? medianOfRatios(row.cpuUs, floor.cpuUs) : null).padStart(13)}`,
      );
    }
  } finally {
    for (const v of variants) v.close();
    await child.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
