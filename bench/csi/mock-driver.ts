/**
 * Kubernetes' CSI mock driver (`csi-mock`) in its own process group, and what its call log says:
 * it prints one JSON line per gRPC call (method, protojson request and response, code). The
 * ledger reads that log incrementally and keeps which volumes the driver created and deleted,
 * by id and by CreateVolume name — the driver's own account, independent of any provisioner.
 */
import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { startProcess, waitUntil, type ManagedProcess } from '../../tools/cluster/processes.js';
import { logTail } from '../proc/child.js';
import { csiBinaryPath } from '../../tools/cluster/binaries.js';

/** The driver name the mock is started with and the StorageClass names. */
export const MOCK_DRIVER_NAME = 'mock.csi.pv-bench.io';

/** One line of the mock's call log (protojson: lowerCamelCase, int64 as strings). */
export interface MockCall {
  time: string;
  method: string;
  request: Record<string, unknown> | null;
  response: Record<string, unknown> | null;
  code: string;
}

export interface CreatedVolume {
  id: string;
  name: string;
}

/** What the driver did, from its log. */
export class DriverLedger {
  /** Volume id → the CreateVolume that made it (the first OK answer naming it). */
  readonly created = new Map<string, CreatedVolume>();
  readonly deleted = new Set<string>();
  /** CreateVolume calls by request name, answered or not. */
  readonly createCallsByName = new Map<string, number>();
  /** Calls by short method name. */
  readonly calls = new Map<string, number>();
  /** Wall-clock ms of every CreateVolume that made a volume, in log order. */
  readonly createdAtMs: number[] = [];
  private offset = 0;
  private partial = '';

  constructor(private readonly logPath: string) {}

  /** Reads what the log gained since the last look. */
  refresh(): this {
    const fd = openSync(this.logPath, 'r');
    try {
      const buf = Buffer.alloc(1 << 20);
      for (;;) {
        const n = readSync(fd, buf, 0, buf.length, this.offset);
        if (n === 0) break;
        this.offset += n;
        this.partial += buf.subarray(0, n).toString('utf8');
      }
    } finally {
      closeSync(fd);
    }
    const lines = this.partial.split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) this.take(line);
    return this;
  }

  /** Volumes made at or after `fromWallMs`, and the wall time from the first to the last of them. */
  createdSince(fromWallMs: number): { count: number; spanMs: number } {
    const times = this.createdAtMs.filter((t) => t >= fromWallMs);
    return { count: times.length, spanMs: times.length === 0 ? 0 : times[times.length - 1] - times[0] };
  }

  /** Ids created and not deleted. */
  liveVolumes(): CreatedVolume[] {
    return [...this.created.values()].filter((v) => !this.deleted.has(v.id));
  }

  private take(line: string): void {
    if (!line.startsWith('{') || !line.includes('"method"')) return;
    let call: MockCall;
    try {
      call = JSON.parse(line) as MockCall;
    } catch {
      return;
    }
    const method = call.method.slice(call.method.lastIndexOf('/') + 1);
    this.calls.set(method, (this.calls.get(method) ?? 0) + 1);
    if (method === 'CreateVolume') {
      const name = String(call.request?.name ?? '');
      this.createCallsByName.set(name, (this.createCallsByName.get(name) ?? 0) + 1);
      const volume = call.response?.volume as { volumeId?: string } | undefined;
      if (call.code === 'OK' && volume?.volumeId && !this.created.has(volume.volumeId)) {
        this.created.set(volume.volumeId, { id: volume.volumeId, name });
        this.createdAtMs.push(Date.parse(call.time));
      }
    } else if (method === 'DeleteVolume' && call.code === 'OK') {
      this.deleted.add(String(call.request?.volumeId ?? ''));
    }
  }
}

export interface MockDriver {
  socket: string;
  proc: ManagedProcess;
  ledger: DriverLedger;
  stop(): Promise<void>;
}

/** Starts `csi-mock` on `dir/mock.sock` (keep `dir` short: a unix socket path has ~107 bytes). */
export async function startMockDriver(dir: string, extraArgs: string[] = [], name = MOCK_DRIVER_NAME): Promise<MockDriver> {
  const socket = join(dir, 'mock.sock');
  const logPath = join(dir, 'csi-mock.log');
  const proc = startProcess('csi-mock', csiBinaryPath('csi-mock'), ['--socket', socket, '--name', name, ...extraArgs], logPath, dir);
  await waitUntil('csi-mock listens', async () => existsSync(socket), proc, () => logTail(logPath), 60_000);
  return { socket, proc, ledger: new DriverLedger(logPath), stop: () => proc.stop() };
}
