/**
 * Watch load for the API-server scenario, in its own process so the watchers' reading does not
 * slow the client loop being measured: opens <count> watch streams on <path> over TLS and only
 * counts the event lines each receives (no JSON parsing). Prints "ready" once every stream has
 * its response headers, and "events <n1> <n2> ..." when stopped (SIGTERM).
 *
 * Usage: node watchers.js <kubeconfig> <count> <path>
 */
import { Agent, request } from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';

async function openWatch(kc: KubeConfig, agent: Agent, path: string, counts: number[], slot: number): Promise<void> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('no current cluster');
  const url = new URL(cluster.server);
  const opts: { headers?: Record<string, string> } = {};
  await kc.applyToHTTPSOptions(opts);
  await new Promise<void>((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port || 443, path, method: 'GET', agent, headers: { ...opts.headers } },
      (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`watch ${path}: HTTP ${res.statusCode}`));
          return;
        }
        res.on('data', (chunk: Buffer) => {
          for (const byte of chunk) if (byte === 10) counts[slot]++;
        });
        resolve();
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function main(kubeconfig: string, count: number, path: string): Promise<void> {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const tls: { ca?: Buffer; cert?: Buffer; key?: Buffer } = {};
  await kc.applyToHTTPSOptions(tls);
  const agent = new Agent({ keepAlive: true, ca: tls.ca, cert: tls.cert, key: tls.key });
  const counts = new Array<number>(count).fill(0);
  await Promise.all(counts.map((_, slot) => openWatch(kc, agent, path, counts, slot)));
  process.stdout.write('ready\n');
  const stop = (): void => {
    process.stdout.write(`events ${counts.join(' ')}\n`, () => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

const [kubeconfig, count, path] = process.argv.slice(2);
if (!kubeconfig || !count || !path) {
  process.stderr.write('usage: watchers <kubeconfig> <count> <path>\n');
  process.exit(2);
}
main(kubeconfig, Number(count), path).catch((err: unknown) => {
  process.stderr.write(`watchers: ${String(err)}\n`);
  process.exit(1);
});
