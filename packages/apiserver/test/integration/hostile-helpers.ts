/**
 * Shared pieces of the hostile-body tests: bodies, raw requests, and the check every such test
 * ends with: the controller still binds a fresh claim to a fresh volume.
 */
import assert from 'node:assert/strict';
import type { TestServerAddress } from '../../../../test/helpers/apiserver.js';
import { api, type ApiResponse } from '../http-client.js';
import { waitFor } from '../../../../test/helpers/wait.js';

export const PVS = '/api/v1/persistentvolumes';

export function pvBody(name: string, spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, ...metadata },
    spec: {
      capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: 'manual',
      persistentVolumeReclaimPolicy: 'Retain', hostPath: { path: `/tmp/${name}` }, ...spec,
    },
  };
}

/** JSON text of `{"a":{"a":...1}}` with `levels` objects (built as text: no recursion). */
export function nestedJson(levels: number): string {
  return '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
}

/** A PV whose spec.hostPath carries an unknown field nested `levels` deep, as raw JSON text. */
export function deepHostPathPv(name: string, levels: number): string {
  const body = JSON.stringify(pvBody(name));
  return body.replace(`"hostPath":{"path":"/tmp/${name}"}`, `"hostPath":{"path":"/tmp/${name}","foo":${nestedJson(levels)}}`);
}

export function sendJsonText(server: TestServerAddress, method: string, path: string, text: string | Buffer, contentType = 'application/json'): Promise<ApiResponse> {
  return api(server, method, path, { rawBody: text, headers: { 'Content-Type': contentType } });
}

/** The Status fields kube-apiserver's answer is compared on. */
export function statusOf(r: ApiResponse): { code: number; reason: unknown; message: unknown; details: unknown } {
  return { code: r.status, reason: r.json?.reason, message: r.json?.message, details: r.json?.details };
}

/** Creates a volume and waits until the controller has made it Available (and so leaves it alone). */
export async function createSettledPv(server: TestServerAddress, name: string): Promise<ApiResponse> {
  const created = await api(server, 'POST', PVS, { body: pvBody(name) });
  assert.equal(created.status, 201, created.text);
  return await waitFor(async () => {
    const got = await api(server, 'GET', `${PVS}/${name}`);
    return got.json?.status?.phase === 'Available' ? got : undefined;
  }, `${name} Available`);
}

export async function assertAbsent(server: TestServerAddress, path: string): Promise<void> {
  assert.equal((await api(server, 'GET', path)).status, 404, `${path} must not exist`);
}

let bindChecks = 0;

/** Creates a volume and a claim that fits only it, and waits until the controller bound them. */
export async function assertControllerStillBinds(server: TestServerAddress): Promise<void> {
  const name = `still-binds-${++bindChecks}`;
  const cls = `class-${name}`;
  const pv = await api(server, 'POST', PVS, { body: pvBody(name, { storageClassName: cls }) });
  assert.equal(pv.status, 201, pv.text);
  const claim = await api(server, 'POST', '/api/v1/namespaces/default/persistentvolumeclaims', {
    body: {
      apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name, namespace: 'default' },
      spec: { accessModes: ['ReadWriteOnce'], storageClassName: cls, resources: { requests: { storage: '1Gi' } } },
    },
  });
  assert.equal(claim.status, 201, claim.text);
  await waitFor(async () => {
    const c = await api(server, 'GET', `/api/v1/namespaces/default/persistentvolumeclaims/${name}`);
    return c.json?.status?.phase === 'Bound' && c.json.spec.volumeName === name;
  }, `claim ${name} bound to its volume`, { timeoutMs: 30_000 });
}
