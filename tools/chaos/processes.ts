/**
 * The processes a chaos run kills: controllers (the real CLI, `pv-controller controller`, each in
 * its own process group, behind the fault proxy) and the embedded API server on SQLite (the real
 * CLI, `pv-controller apiserver`, restarted on the same data directory and port). A kill is
 * SIGKILL to the process group: nothing gets to clean up.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, startProcess, waitUntil, type ManagedProcess } from '../cluster/processes.js';

const CLI = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

export function killGroup(proc: ManagedProcess): Promise<void> {
  try {
    process.kill(-proc.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
  return proc.exited;
}

function tail(path: string): string {
  return existsSync(path) ? readFileSync(path, 'utf8').slice(-4000) : '';
}

export interface ControllerSettings {
  kubeconfig: string;
  hostPathRoot: string;
  logDir: string;
  /** The environment of the cloud plugin's SDK (endpoint, region, credentials). */
  cloudEnv: Record<string, string>;
  /** The CSI driver's socket (the CSI fault proxy's), when the run has one. */
  csiAddress?: string;
}

/** The deadline of the controllers' CSI calls: short, so a lost CreateVolume answer is given up on within the run. */
const CSI_TIMEOUT = '8s';

/**
 * The controllers of a run: started, SIGKILLed and counted here. A controller that exits by
 * itself (it lost its lease: it exits 1, as kube-controller-manager does) is started again a
 * second later, as its Deployment would.
 */
export class ControllerFleet {
  private readonly running: { proc: ManagedProcess; leaderElect: boolean }[] = [];
  private started = 0;
  private stopped = false;
  kills = 0;
  /** Controllers that exited on their own (lease lost) and were restarted. */
  selfExits = 0;

  constructor(private readonly settings: ControllerSettings) {}

  count(): number {
    return this.running.length;
  }

  /** How many of the running controllers act without a lease. */
  unelected(): number {
    return this.running.filter((c) => !c.leaderElect).length;
  }

  start(leaderElect: boolean): ManagedProcess {
    const s = this.settings;
    const n = ++this.started;
    const args = [CLI, 'controller', '--kubeconfig', s.kubeconfig, '--host-path-root', s.hostPathRoot, '--cloud-provider', 'aws'];
    args.push('--leader-elect', String(leaderElect), '--leader-elect-lease-duration', '2s', '--leader-elect-renew-deadline', '1500ms');
    args.push('--leader-elect-retry-period', '250ms', '--pvclaimbinder-sync-period', '2s', '--pv-recycler-maximum-retry', '6');
    args.push('--metrics-bind-address', '0', '--volume-stats-agg-period', '0', '--kube-api-qps', '200', '--kube-api-burst', '400');
    if (s.csiAddress) args.push('--csi-address', s.csiAddress, '--csi-timeout', CSI_TIMEOUT, '--csi-probe-timeout', '60s');
    const proc = startProcess(`controller-${n}`, process.execPath, args, join(s.logDir, `controller-${n}.log`), s.logDir, s.cloudEnv);
    const entry = { proc, leaderElect };
    this.running.push(entry);
    void proc.exited.then(() => {
      const i = this.running.indexOf(entry);
      if (i < 0 || this.stopped) return;
      // Still listed: nobody killed it.
      this.running.splice(i, 1);
      this.selfExits++;
      setTimeout(() => {
        if (!this.stopped) this.start(leaderElect);
      }, 1000);
    });
    return proc;
  }

  /** SIGKILLs the `index`-th running controller (modulo the count). */
  async kill(index: number): Promise<void> {
    const entry = this.running[index % this.running.length];
    if (!entry) return;
    this.running.splice(this.running.indexOf(entry), 1);
    this.kills++;
    await killGroup(entry.proc);
  }

  /** SIGKILLs every running controller, then starts as many again, each as it ran (with or without leader election). */
  async crashAll(): Promise<void> {
    const modes = this.running.map((c) => c.leaderElect);
    while (this.running.length > 0) await this.kill(0);
    for (const leaderElect of modes) this.start(leaderElect);
  }

  /** Kills every controller, for good, and leaves the counts alone. */
  async stopAll(): Promise<void> {
    this.stopped = true;
    const all = this.running.splice(0);
    await Promise.all(all.map((c) => killGroup(c.proc)));
  }
}

/** The embedded API server on SQLite in `dataDir`, always on the same port. */
export class EmbeddedApiServer {
  private proc: ManagedProcess | undefined;
  private starts = 0;
  kills = 0;

  private constructor(
    private readonly dataDir: string,
    private readonly logDir: string,
    readonly port: number,
  ) {}

  static async start(dataDir: string, logDir: string): Promise<EmbeddedApiServer> {
    const server = new EmbeddedApiServer(dataDir, logDir, await freePort());
    await server.restart();
    return server;
  }

  get kubeconfigPath(): string {
    return join(this.dataDir, 'kubeconfig');
  }

  get up(): boolean {
    return this.proc !== undefined;
  }

  /** Starts the server (again) and waits until it answers; retries a start that exits at once. */
  async restart(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const n = ++this.starts;
      const logPath = join(this.logDir, `apiserver-${n}.log`);
      const args = [CLI, 'apiserver', '--data-dir', this.dataDir, '--listen', `127.0.0.1:${this.port}`, '--storage', 'sqlite'];
      const proc = startProcess(`apiserver-${n}`, process.execPath, args, logPath, this.logDir);
      try {
        await waitUntil('the API server to listen', async () => /listening on/.test(tail(logPath)), proc, () => tail(logPath), 60_000);
        this.proc = proc;
        return;
      } catch (err) {
        await killGroup(proc);
        if (attempt >= 5) throw err;
      }
    }
  }

  async kill(): Promise<void> {
    const proc = this.proc;
    this.proc = undefined;
    if (!proc) return;
    this.kills++;
    await killGroup(proc);
  }

  async stop(): Promise<void> {
    const proc = this.proc;
    this.proc = undefined;
    await proc?.stop();
  }
}
