/**
 * Shared by the cloud integration tests: an embedded API server and a controller whose only
 * plugin is a cloud plugin pointed at its loopback emulator, with the TopologyResolver reading
 * nodes from that server; builders for classes and claims; waits on claims, PVs and events.
 */
import { OAuth2Client } from 'google-auth-library';
import { defaultModules } from '../../src/controller/modules.js';
import { RestTransport } from '../../src/kube-client/transport.js';
import { topologyFromKubeConfig } from '../../src/controller/topology/node-zones.js';
import { ANN_SELECTED_NODE } from '@pv-controller/kube/annotations.js';
import type { Node, PersistentVolume, PersistentVolumeClaim, StorageClass } from '@pv-controller/kube/types.js';
import { AwsEbsPlugin } from '../../src/plugins/aws-ebs/aws-ebs-plugin.js';
import { CinderPlugin } from '../../src/plugins/cinder/cinder-plugin.js';
import type { TopologyResolver } from '../../src/plugins/cloud-common/zones.js';
import { GcePdPlugin } from '../../src/plugins/gce-pd/gce-pd-plugin.js';
import type { VolumePlugin } from '../../src/plugins/api/core.js';
import { Ec2Emulator } from '../emulators/ec2.js';
import { fastCloudOptions } from '../emulators/fixtures.js';
import type { GceEmulator } from '../emulators/gce.js';
import { openStackEnv, type OpenStackEmulator } from '../emulators/openstack.js';

export { openStackEnv };
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';
import { waitFor } from '../helpers/wait.js';
import { TestApi } from './provisioning-helpers.js';

export const AWS_CREDENTIALS = { accessKeyId: 'AKIDEMULATOR', secretAccessKey: 'emulator-secret-key' };

/** The AWS SDK's standard environment pointing a controller process at the emulator (what a deployment would set). */
export function awsEnvironment(ec2: Ec2Emulator): Record<string, string> {
  return {
    AWS_ENDPOINT_URL_EC2: ec2.url,
    AWS_REGION: ec2.region,
    AWS_ACCESS_KEY_ID: AWS_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: AWS_CREDENTIALS.secretAccessKey,
    AWS_EC2_METADATA_DISABLED: 'true',
  };
}

export function awsPlugin(ec2: Ec2Emulator, topology?: TopologyResolver): AwsEbsPlugin {
  return new AwsEbsPlugin({ region: ec2.region, endpoint: ec2.url, credentials: AWS_CREDENTIALS, ...fastCloudOptions(), ...(topology ? { topology } : {}) });
}

export function gcePlugin(gce: GceEmulator, topology?: TopologyResolver): GcePdPlugin {
  const authClient = new OAuth2Client({ clientId: gce.clientId, clientSecret: gce.clientSecret, endpoints: { oauth2TokenUrl: gce.tokenUrl } });
  authClient.setCredentials({ refresh_token: gce.refreshToken });
  return new GcePdPlugin({ project: gce.project, zone: gce.zones[0], endpoint: gce.computeEndpoint, authClient, ...fastCloudOptions(), ...(topology ? { topology } : {}) });
}

export function cinderPlugin(os: OpenStackEmulator, topology?: TopologyResolver): CinderPlugin {
  return new CinderPlugin({ env: openStackEnv(os), ...fastCloudOptions(), ...(topology ? { topology } : {}) });
}

export interface CloudSetup {
  cluster: TestCluster;
  api: TestApi;
  transport: RestTransport;
  stop(): Promise<void>;
}

/**
 * Embedded server + controller (every shipped module, reclaim retried every 200 ms, no /metrics
 * listener) with the plugin `make` builds from a TopologyResolver reading this server's nodes;
 * `wrap` may put a test double around it.
 */
export async function startCloudCluster(
  make: (topology: TopologyResolver) => VolumePlugin,
  wrap: (plugin: VolumePlugin) => VolumePlugin = (plugin) => plugin,
): Promise<CloudSetup> {
  const cluster = await startTestCluster({
    noHostPath: true,
    noController: true,
    modules: defaultModules({ reclaimer: { retryIntervalMs: 200 } }),
    controllerOptions: { metricsBindAddress: '0' },
  });
  const topology = topologyFromKubeConfig(cluster.kc);
  cluster.plugins.register(wrap(make(topology.topology)));
  const api = new TestApi(cluster.kc);
  const transport = new RestTransport(cluster.kc, { qps: 0, burst: 0 });
  await cluster.startController();
  return {
    cluster,
    api,
    transport,
    async stop() {
      api.close();
      transport.close();
      topology.close();
      await cluster.stop();
    },
  };
}

export interface AwsSetup extends CloudSetup {
  ec2: Ec2Emulator;
}

/** A started EC2 emulator and a cloud cluster on its aws-ebs plugin, added to `running` for the caller's afterEach to stop. */
export async function startAwsSetup(running: AwsSetup[], wrap?: (plugin: VolumePlugin) => VolumePlugin): Promise<AwsSetup> {
  const ec2 = new Ec2Emulator();
  await ec2.start();
  const s = { ...(await startCloudCluster((topology) => awsPlugin(ec2, topology), wrap)), ec2 };
  running.push(s);
  return s;
}

export function cloudClass(name: string, provisioner: string, extra: Partial<StorageClass> = {}): StorageClass {
  return { metadata: { name }, provisioner, reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate', ...extra };
}

export function cloudClaim(name: string, className: string, storage = '1Gi', selectedNode?: string): PersistentVolumeClaim {
  return {
    metadata: { name, namespace: 'default', ...(selectedNode ? { annotations: { [ANN_SELECTED_NODE]: selectedNode } } : {}) },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } }, storageClassName: className },
  };
}

export function createNode(s: CloudSetup, name: string, labels: Record<string, string>): Promise<Node> {
  return s.transport.request<Node>({ method: 'POST', verb: 'create', path: '/api/v1/nodes', body: { apiVersion: 'v1', kind: 'Node', metadata: { name, labels } } });
}

export function boundClaim(s: CloudSetup, name: string, timeoutMs = 30_000): Promise<PersistentVolumeClaim> {
  return waitFor(async () => {
    const claim = await s.api.claim('default', name);
    return claim?.status?.phase === 'Bound' ? claim : undefined;
  }, `claim ${name} to be Bound`, { timeoutMs });
}

export function claimGone(s: CloudSetup, name: string): Promise<true> {
  return waitFor(async () => (await s.api.claim('default', name)) === undefined, `claim ${name} to be gone`, { timeoutMs: 30_000 });
}

export function volumeGone(s: CloudSetup, pvName: string): Promise<true> {
  return waitFor(async () => (await s.api.volume(pvName)) === undefined, `PV ${pvName} to be gone`, { timeoutMs: 30_000 });
}

export async function volumeOf(s: CloudSetup, claim: PersistentVolumeClaim): Promise<PersistentVolume> {
  const pv = await s.api.volume(claim.spec.volumeName ?? '');
  if (!pv) throw new Error(`claim ${claim.metadata.name} names no existing PV`);
  return pv;
}

/** `<cluster>-dynamic-pvc-<uid>`: the backing name of a claim's volume with the default cluster name. */
export function expectedBackingName(claim: PersistentVolumeClaim): string {
  return `kubernetes-dynamic-pvc-${claim.metadata.uid ?? ''}`;
}
