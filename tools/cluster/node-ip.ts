/**
 * Node addresses of their own for several kubelets on one machine. A kubelet refuses a loopback
 * node IP ("nodeIP can't be loopback address"), so without one every node reports the machine's
 * interface address and host-network pods of different nodes collide on their ports there.
 * Each node gets an address of the benchmarking range 198.18.0.0/15 (RFC 2544: never routed on a
 * real network) as a /32 on the loopback device — traffic to it stays on this machine — with a
 * third octet drawn per run so concurrent runs never share one; release() removes them.
 */
import { execFileSync } from 'node:child_process';
import { randomInt } from 'node:crypto';

const DEVICE = 'lo';

function ip(args: string[]): void {
  execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

export class NodeAddresses {
  private readonly added: string[] = [];
  private subnet: number | undefined;

  /** The address of node-<index> (1-based, at most 254), added to the loopback device. */
  take(index: number): string {
    if (!Number.isInteger(index) || index < 1 || index > 254) throw new Error(`node index ${index} out of 1..254`);
    for (let attempt = 0; ; attempt++) {
      this.subnet ??= randomInt(1, 255);
      const address = `198.18.${this.subnet}.${index}`;
      try {
        ip(['addr', 'add', `${address}/32`, 'dev', DEVICE]);
        this.added.push(address);
        return address;
      } catch (err) {
        const stderr = String((err as { stderr?: Buffer }).stderr ?? '');
        // Another run holds this subnet: draw another (only before this run has taken one).
        if (/exists/i.test(stderr) && this.added.length === 0 && attempt < 8) {
          this.subnet = undefined;
          continue;
        }
        throw new Error(`cannot add ${address}/32 to ${DEVICE}: ${stderr.trim() || (err as Error).message}`);
      }
    }
  }

  /** Removes every address this run added (best effort: one already gone is not an error). */
  release(): void {
    for (const address of this.added.splice(0)) {
      try {
        ip(['addr', 'del', `${address}/32`, 'dev', DEVICE]);
      } catch {
        // Already removed.
      }
    }
  }
}
