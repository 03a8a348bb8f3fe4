/**
 * The Python `kubernetes` client (Debian's python3-kubernetes), unmodified, against the embedded
 * server: create, read, list, patch, replace, watch and delete (through the protection
 * finalizer) of a claim, and a volume. Skips
 * with a message where no python3 can import the package.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startEmbeddedTestApiServer, type EmbeddedTestApiServer } from '../helpers/apiserver.js';
import { runProcess } from '../helpers/run-process.js';

/** Debian's interpreter first (the package installs there), then the one on PATH. */
function findPythonWithKubernetes(): string | undefined {
  for (const python of ['/usr/bin/python3', 'python3']) {
    const r = spawnSync(python, ['-c', 'import kubernetes'], { stdio: 'ignore', timeout: 30_000 });
    if (r.status === 0) return python;
  }
  return undefined;
}

const python = findPythonWithKubernetes();
const skip = python ? false : "no python3 with the 'kubernetes' package (Debian: apt-get install python3-kubernetes)";

const SCRIPT = `
import json, sys, threading
from kubernetes import client, config, watch

config.load_kube_config(config_file=sys.argv[1])
core = client.CoreV1Api()
out = lambda **kv: print(json.dumps(kv), flush=True)

claim = client.V1PersistentVolumeClaim(
    metadata=client.V1ObjectMeta(name="py-claim", labels={"from": "python"}),
    spec=client.V1PersistentVolumeClaimSpec(
        access_modes=["ReadWriteOnce"], storage_class_name="",
        resources=client.V1ResourceRequirements(requests={"storage": "1Gi"})))
created = core.create_namespaced_persistent_volume_claim("default", claim)
out(step="create", name=created.metadata.name, phase=created.status.phase)

listed = core.list_namespaced_persistent_volume_claim("default", label_selector="from=python")
out(step="list", names=[c.metadata.name for c in listed.items], rv=listed.metadata.resource_version)

events = []
w = watch.Watch()
def watch_claims():
    for ev in w.stream(core.list_namespaced_persistent_volume_claim, "default",
                       resource_version=listed.metadata.resource_version, timeout_seconds=30):
        events.append([ev["type"], ev["object"].metadata.name, (ev["object"].metadata.labels or {}).get("step")])
        if ev["type"] == "DELETED":
            w.stop()
watcher = threading.Thread(target=watch_claims)
watcher.start()

patched = core.patch_namespaced_persistent_volume_claim("py-claim", "default", {"metadata": {"labels": {"step": "patched"}}})
out(step="patch", label=patched.metadata.labels["step"])
got = core.read_namespaced_persistent_volume_claim("py-claim", "default")
got.metadata.labels["step"] = "replaced"
replaced = core.replace_namespaced_persistent_volume_claim("py-claim", "default", got)
out(step="replace", label=replaced.metadata.labels["step"], rv_changed=replaced.metadata.resource_version != got.metadata.resource_version)

pv = client.V1PersistentVolume(
    metadata=client.V1ObjectMeta(name="py-pv"),
    spec=client.V1PersistentVolumeSpec(capacity={"storage": "1Gi"}, access_modes=["ReadWriteOnce"],
                                       host_path=client.V1HostPathVolumeSource(path="/tmp/py-pv")))
out(step="pv", name=core.create_persistent_volume(pv).metadata.name,
    reclaim=core.read_persistent_volume("py-pv").spec.persistent_volume_reclaim_policy)
core.delete_persistent_volume("py-pv")

try:
    core.read_namespaced_persistent_volume_claim("absent", "default")
except client.exceptions.ApiException as e:
    out(step="notfound", status=e.status, reason=json.loads(e.body)["reason"])

deleting = core.delete_namespaced_persistent_volume_claim("py-claim", "default")
out(step="delete", finalizers=deleting.metadata.finalizers, deleting=deleting.metadata.deletion_timestamp is not None)
# No controller runs beside this server: the protection finalizer goes by hand.
core.patch_namespaced_persistent_volume_claim("py-claim", "default", {"metadata": {"finalizers": None}})
watcher.join(40)
out(step="watch", events=events)
`;

let api: EmbeddedTestApiServer;

before(async () => {
  if (!skip) api = await startEmbeddedTestApiServer();
});

after(async () => {
  await api?.stop();
});

test('the Python kubernetes client creates, lists, patches, replaces, watches and deletes against the embedded server', { skip, timeout: 120_000 }, async () => {
  const script = join(api.dataDir, 'crud_watch.py');
  await writeFile(script, SCRIPT);
  const r = await runProcess(python!, [script, api.server.kubeconfigPath], { timeoutMs: 90_000 });
  assert.equal(r.code, 0, `python exited ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  const steps = Object.fromEntries(r.stdout.trim().split('\n').map((line) => {
    const obj = JSON.parse(line) as { step: string };
    return [obj.step, obj];
  })) as Record<string, Record<string, unknown>>;
  assert.deepEqual(steps.create, { step: 'create', name: 'py-claim', phase: 'Pending' });
  assert.deepEqual((steps.list as { names: string[] }).names, ['py-claim']);
  assert.equal(steps.patch.label, 'patched');
  assert.deepEqual(steps.replace, { step: 'replace', label: 'replaced', rv_changed: true });
  assert.deepEqual(steps.pv, { step: 'pv', name: 'py-pv', reclaim: 'Retain' });
  assert.deepEqual(steps.notfound, { step: 'notfound', status: 404, reason: 'NotFound' });
  assert.deepEqual(steps.delete, { step: 'delete', finalizers: ['kubernetes.io/pvc-protection'], deleting: true });
  assert.deepEqual(steps.watch.events, [
    ['MODIFIED', 'py-claim', 'patched'],
    ['MODIFIED', 'py-claim', 'replaced'],
    ['MODIFIED', 'py-claim', 'replaced'],
    ['DELETED', 'py-claim', 'replaced'],
  ]);
});
