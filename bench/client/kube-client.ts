/**
 * The bench's API clients, built from a kubeconfig:
 * - `core`/`storage`: @kubernetes/client-node 1.4.0 typed APIs — the kind of client the
 *   controller uses, with its HTTP library (src/kube-client/https-library.ts) — over one
 *   shared TLS keep-alive agent. (client-node 1.4.0 builds a new
 *   https.Agent for every request by default, i.e. a fresh TLS handshake per call; a
 *   long-running client must pin a keep-alive agent, and so does the bench.)
 * - `raw`: a bare `https` keep-alive request function on the same agent, to measure how much of
 *   a client loop's time is client-node itself.
 */
import { Agent, request } from 'node:https';
import { nodeHttpLibrary } from '../../src/kube-client/https-library.js';
import {
  CoreV1Api,
  KubeConfig,
  ServerConfiguration,
  StorageV1Api,
  createConfiguration,
  type RequestContext,
  type SecurityAuthentication,
} from '@kubernetes/client-node';

export interface RawResponse {
  status: number;
  body: string;
}

/** A string body is sent as JSON; a Buffer as protobuf, with protobuf asked for in return. */
export type RawRequest = (method: string, path: string, body?: string | Buffer) => Promise<RawResponse>;

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

/**
 * Opens a streaming GET (a watch); resolves once headers arrived; call the result to close it.
 * `onEnd` runs once if the stream ends or fails before it is closed (a server may close a watch,
 * e.g. kube-apiserver one whose reader falls behind).
 */
export type LineStream = (path: string, onLine: (line: string) => void, onEnd?: (why: string) => void) => Promise<() => void>;

export interface BenchClient {
  server: string;
  core: CoreV1Api;
  storage: StorageV1Api;
  raw: RawRequest;
  stream: LineStream;
  /** Closes the keep-alive sockets. */
  close(): void;
}

interface ConnectionSettings {
  agent: Agent;
  headers: Record<string, string>;
  server: URL;
}

async function connectionSettings(kc: KubeConfig): Promise<ConnectionSettings> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('kubeconfig has no current cluster');
  if (!cluster.server.startsWith('https:')) throw new Error(`bench clients speak TLS only, not ${cluster.server}`);
  const opts: { ca?: Buffer; cert?: Buffer; key?: Buffer; headers?: Record<string, string> } = {};
  await kc.applyToHTTPSOptions(opts);
  const agent = new Agent({
    keepAlive: true,
    ca: opts.ca,
    cert: opts.cert,
    key: opts.key,
    rejectUnauthorized: !cluster.skipTLSVerify,
    servername: cluster.tlsServerName,
  });
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(opts.headers ?? {})) headers[name] = String(value);
  return { agent, headers, server: new URL(cluster.server) };
}

function keepAliveAuth(settings: ConnectionSettings): SecurityAuthentication {
  return {
    getName: () => 'bench-keep-alive',
    applySecurityAuthentication(context: RequestContext): void {
      for (const [name, value] of Object.entries(settings.headers)) context.setHeaderParam(name, value);
      context.setAgent(settings.agent);
    },
  };
}

function rawRequester(settings: ConnectionSettings): RawRequest {
  return (method, path, body) =>
    new Promise<RawResponse>((resolve, reject) => {
      const fail = (err: Error): void => reject(new Error(`${method} ${path}: ${err.message}`, { cause: err }));
      const mediaType = Buffer.isBuffer(body) ? PROTOBUF : 'application/json';
      const headers: Record<string, string | number> = { ...settings.headers, Accept: mediaType };
      if (body !== undefined) {
        headers['Content-Type'] = mediaType;
        headers['Content-Length'] = Buffer.byteLength(body);
      }
      const req = request(
        {
          host: settings.server.hostname,
          port: settings.server.port || 443,
          path,
          method,
          agent: settings.agent,
          headers,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', fail);
        },
      );
      req.on('error', fail);
      req.end(body);
    });
}

function lineStreamer(settings: ConnectionSettings): LineStream {
  return (path, onLine, onEnd) =>
    new Promise((resolve, reject) => {
      let closed = false;
      const ended = (why: string): void => {
        if (closed) return;
        closed = true;
        onEnd?.(why);
      };
      const req = request(
        {
          host: settings.server.hostname,
          port: settings.server.port || 443,
          path,
          method: 'GET',
          headers: { ...settings.headers, Accept: 'application/json' },
          // Its own connection: a watch holds its socket for as long as it runs.
          agent: false,
          ca: settings.agent.options.ca,
          cert: settings.agent.options.cert,
          key: settings.agent.options.key,
          rejectUnauthorized: settings.agent.options.rejectUnauthorized,
        },
        (res) => {
          if (res.statusCode !== 200) {
            reject(new Error(`watch ${path}: HTTP ${res.statusCode}`));
            res.resume();
            return;
          }
          let pending = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            pending += chunk;
            let newline = pending.indexOf('\n');
            while (newline >= 0) {
              const line = pending.slice(0, newline);
              pending = pending.slice(newline + 1);
              if (line.length > 0) onLine(line);
              newline = pending.indexOf('\n');
            }
          });
          res.on('error', (err) => ended(err.message));
          res.on('end', () => ended('the server ended the stream'));
          res.on('close', () => ended('the connection closed'));
          resolve(() => {
            closed = true;
            req.destroy();
          });
        },
      );
      req.on('error', reject);
      req.end();
    });
}

export function loadKubeConfig(path: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return kc;
}

export async function connect(kubeconfigPath: string): Promise<BenchClient> {
  const kc = loadKubeConfig(kubeconfigPath);
  const settings = await connectionSettings(kc);
  const config = createConfiguration({
    baseServer: new ServerConfiguration(settings.server.toString().replace(/\/$/, ''), {}),
    authMethods: { default: keepAliveAuth(settings) },
    // The controller's HTTP library (node:http(s) in client-node's slot, not node-fetch): the
    // write floor must be issued by the same kind of client the controller uses.
    httpApi: nodeHttpLibrary(),
  });
  return {
    server: settings.server.toString(),
    core: new CoreV1Api(config),
    storage: new StorageV1Api(config),
    raw: rawRequester(settings),
    stream: lineStreamer(settings),
    close: () => settings.agent.destroy(),
  };
}

/** The server's current resourceVersion, as a (small) list of StorageClasses reports it. */
export async function currentResourceVersion(client: BenchClient): Promise<number> {
  const res = expectOk(await client.raw('GET', '/apis/storage.k8s.io/v1/storageclasses'), 'list StorageClasses');
  const rv = Number((JSON.parse(res.body) as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion);
  if (!Number.isFinite(rv)) throw new Error('list returned no integer resourceVersion');
  return rv;
}

/** Throws unless a raw response has a 2xx status. */
export function expectOk(res: RawResponse, what: string): RawResponse {
  if (res.status < 200 || res.status >= 300) {
    throw new Error(`${what}: HTTP ${res.status}: ${res.body.slice(0, 300)}`);
  }
  return res;
}
