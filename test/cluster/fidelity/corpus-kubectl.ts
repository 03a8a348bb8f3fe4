/** The kubectl commands a user types, compared by exit code and normalised output. */
import type { Case, KubectlStep } from './case.js';
import { EVENT, LEASE, MERGE, NODE, PV, PVC, SC, create, defineCase, item, patch, post } from './fixtures.js';

const AREA = 'kubectl';

function kubectl(args: string[], more: Partial<KubectlStep> = {}): KubectlStep {
  return { kind: 'kubectl', args, ...more };
}

const claimYaml = (size = '1Gi', note = 'first'): string => `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: claim
  annotations:
    note: ${note}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: manual
  resources:
    requests:
      storage: ${size}
`;

const pvYaml = (policy: string): string => `apiVersion: v1
kind: PersistentVolume
metadata:
  name: pv-{id}
  labels:
    case: "{id}"
spec:
  capacity:
    storage: 1Gi
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: ${policy}
  storageClassName: manual
  hostPath:
    path: /tmp/fidelity/pv-{id}
`;

const applyClaim = (extra: string[] = [], note = 'first'): KubectlStep =>
  kubectl(['apply', '-f', '{dir}/claim.yaml', '-n', '{ns}', ...extra], { files: { 'claim.yaml': claimYaml('1Gi', note) } });

const pvSetup = [create(PV, 'pv-{id}')];
const claimSetup = [create(PVC, 'claim')];
const eventAboutClaim = post(EVENT.collection, EVENT.sample('claim-event'));
/** An Event naming the claim created before it by uid, as describe selects them. */
const eventAboutCreatedClaim = post(EVENT.collection, { ...EVENT.sample('claim-event'), involvedObject: { kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace: '{ns}', name: 'claim', uid: '{$uid}' } });

const cases: Case[] = [
  defineCase('kubectl-create-namespace', AREA, 'kubectl create namespace', kubectl(['create', 'namespace', 'ns-{id}'])),
  defineCase('kubectl-get-namespace', AREA, 'kubectl get namespace', kubectl(['get', 'namespace', 'ns-{id}']), { setup: [post('/api/v1/namespaces', { metadata: { name: 'ns-{id}' } })] }),
  defineCase('kubectl-explain-pvc', AREA, 'kubectl explain pvc', kubectl(['explain', 'pvc']), { view: { kind: 'lines', match: '^(KIND|VERSION|GROUP|FIELDS|DESCRIPTION):|^ [a-zA-Z]+ <|error' } }),
  defineCase('kubectl-explain-field', AREA, 'kubectl explain pv.spec.persistentVolumeReclaimPolicy', kubectl(['explain', 'pv.spec.persistentVolumeReclaimPolicy']), {
    view: { kind: 'lines', match: '^(KIND|VERSION|FIELD|FIELDS):|error|ENUM|Retain|Delete|Recycle' },
  }),
  defineCase('kubectl-apply-create', AREA, 'kubectl apply creates', applyClaim()),
  defineCase('kubectl-apply-configure', AREA, 'kubectl apply of a changed file', applyClaim([], 'second'), { setup: [applyClaim()] }),
  defineCase('kubectl-apply-unchanged', AREA, 'kubectl apply of the same file', applyClaim(), { setup: [applyClaim()] }),
  defineCase('kubectl-apply-server-side', AREA, 'kubectl apply --server-side', applyClaim(['--server-side'])),
  defineCase('kubectl-apply-server-side-again', AREA, 'kubectl apply --server-side of a changed file', applyClaim(['--server-side'], 'second'), { setup: [applyClaim(['--server-side'])] }),
  defineCase('kubectl-apply-dry-run-server', AREA, 'kubectl apply --dry-run=server', applyClaim(['--dry-run=server'])),
  defineCase('kubectl-create-file', AREA, 'kubectl create -f', kubectl(['create', '-f', '{dir}/pv.yaml'], { files: { 'pv.yaml': pvYaml('Retain') } })),
  defineCase('kubectl-replace', AREA, 'kubectl replace -f', kubectl(['replace', '-f', '{dir}/pv.yaml'], { files: { 'pv.yaml': pvYaml('Delete') } }), { setup: pvSetup }),
  defineCase('kubectl-auth-can-i', AREA, 'kubectl auth can-i create persistentvolumes', kubectl(['auth', 'can-i', 'create', 'persistentvolumes'])),
  defineCase('kubectl-auth-can-i-namespaced', AREA, 'kubectl auth can-i delete pvc in a namespace', kubectl(['auth', 'can-i', 'delete', 'pvc', '-n', '{ns}'])),
  defineCase('kubectl-auth-can-i-as-nobody', AREA, 'kubectl auth can-i --as a user no binding names', kubectl(['auth', 'can-i', 'list', 'pods', '-n', '{ns}', '--as=nobody'])),
  defineCase('kubectl-get-as-nobody', AREA, 'kubectl get --as a user no binding names is Forbidden', kubectl(['get', 'pvc', '-n', '{ns}', '--as=nobody'])),
  defineCase('kubectl-auth-whoami-as-nobody', AREA, 'kubectl auth whoami --as a user', kubectl(['auth', 'whoami', '--as=nobody'])),
  defineCase('kubectl-edit', AREA, 'kubectl edit with $EDITOR', kubectl(['edit', 'pv', 'pv-{id}'], { editor: 'sed -i "s/persistentVolumeReclaimPolicy: Retain/persistentVolumeReclaimPolicy: Delete/" "$1"' }), { setup: pvSetup }),
  defineCase('kubectl-edit-invalid', AREA, 'kubectl edit that makes the object invalid', kubectl(['edit', 'pv', 'pv-{id}'], { editor: 'sed -i "s/persistentVolumeReclaimPolicy: Retain/persistentVolumeReclaimPolicy: Keep/" "$1"' }), {
    setup: pvSetup,
    view: { kind: 'lines', match: 'Invalid|invalid|error|edited' },
  }),
  defineCase('kubectl-diff-changed', AREA, 'kubectl diff of a changed file', kubectl(['diff', '-f', '{dir}/pv.yaml'], { files: { 'pv.yaml': pvYaml('Delete') } }), {
    setup: pvSetup,
    view: { kind: 'lines', match: '^[-+] |error' },
  }),
  defineCase('kubectl-diff-same', AREA, 'kubectl diff of an unchanged file', kubectl(['diff', '-f', '{dir}/pv.yaml'], { files: { 'pv.yaml': pvYaml('Retain') } }), { setup: pvSetup }),
  defineCase('kubectl-describe-pv', AREA, 'kubectl describe pv', kubectl(['describe', 'pv', 'pv-{id}']), { setup: pvSetup }),
  defineCase('kubectl-describe-pvc', AREA, 'kubectl describe pvc with an event', kubectl(['describe', 'pvc', 'claim', '-n', '{ns}']), { setup: [...claimSetup, eventAboutCreatedClaim] }),
  defineCase('kubectl-describe-sc', AREA, 'kubectl describe storageclass', kubectl(['describe', 'storageclass', 'sc-{id}']), { setup: [create(SC, 'sc-{id}')] }),
  defineCase('kubectl-describe-node', AREA, 'kubectl describe node', kubectl(['describe', 'node', 'node-{id}']), { setup: [create(NODE, 'node-{id}')], view: { kind: 'lines', match: '^(Name|Roles|Labels|Taints|Unschedulable|Events):' } }),
  defineCase('kubectl-events', AREA, 'kubectl events', kubectl(['events', '-n', '{ns}']), { setup: [eventAboutClaim] }),
  defineCase('kubectl-events-for', AREA, 'kubectl events --for', kubectl(['events', '-n', '{ns}', '--for', 'pvc/claim']), { setup: [eventAboutClaim, post(EVENT.collection, { ...EVENT.sample('other'), involvedObject: { kind: 'Pod', namespace: '{ns}', name: 'p' } })] }),
  defineCase('kubectl-get-events', AREA, 'kubectl get events', kubectl(['get', 'events', '-n', '{ns}']), { setup: [eventAboutClaim] }),
  defineCase('kubectl-wait-jsonpath', AREA, 'kubectl wait --for=jsonpath', kubectl(['wait', '--for=jsonpath={.status.phase}=Pending', 'pv/pv-{id}', '--timeout=10s']), { setup: pvSetup }),
  defineCase('kubectl-wait-condition', AREA, 'kubectl wait --for=condition', kubectl(['wait', '--for=condition=Ready', 'node/node-{id}', '--timeout=10s']), {
    setup: [create(NODE, 'node-{id}'), patch(`${item(NODE, 'node-{id}')}/status`, MERGE, NODE.status)],
  }),
  defineCase('kubectl-get-watch', AREA, 'kubectl get -w shows a change', kubectl(['get', 'pvc', '-n', '{ns}', '-w'], {
    stream: { ready: 'claim', during: [patch(item(PVC, 'claim'), MERGE, { spec: { volumeName: 'pv-{id}' } })], until: 'claim[\\s\\S]*claim' },
  }), { setup: claimSetup }),
  defineCase('kubectl-get-watch-events', AREA, 'kubectl get -w --output-watch-events', kubectl(['get', 'lease', '-n', '{ns}', '-w', '--output-watch-events'], {
    stream: { ready: 'lease-a', during: [create(LEASE, 'lease-b')], until: 'lease-b' },
  }), { setup: [create(LEASE, 'lease-a')] }),
  defineCase('kubectl-get-yaml', AREA, 'kubectl get -o yaml', kubectl(['get', 'pv', 'pv-{id}', '-o', 'yaml']), { setup: pvSetup }),
  defineCase('kubectl-get-json-list', AREA, 'kubectl get -o json of a list', kubectl(['get', 'pvc', '-n', '{ns}', '-o', 'json']), { setup: claimSetup }),
  defineCase('kubectl-get-wide', AREA, 'kubectl get -o wide', kubectl(['get', 'pv', '-l', 'case={id}', '-o', 'wide']), { setup: pvSetup }),
  defineCase('kubectl-get-sc', AREA, 'kubectl get storageclass', kubectl(['get', 'sc', '-l', 'case={id}']), { setup: [create(SC, 'sc-{id}')] }),
  defineCase('kubectl-get-custom-columns', AREA, 'kubectl get -o custom-columns', kubectl(['get', 'pvc', '-n', '{ns}', '-o', 'custom-columns=NAME:.metadata.name,CLASS:.spec.storageClassName,FINALIZERS:.metadata.finalizers']), { setup: claimSetup }),
  defineCase('kubectl-get-missing', AREA, 'kubectl get of an object that does not exist', kubectl(['get', 'pv', 'nope-{id}'])),
  defineCase('kubectl-delete', AREA, 'kubectl delete --wait=false', kubectl(['delete', 'pvc', 'claim', '-n', '{ns}', '--wait=false']), { setup: claimSetup }),
  defineCase('kubectl-label', AREA, 'kubectl label', kubectl(['label', 'pv', 'pv-{id}', 'tier=gold']), { setup: pvSetup }),
  defineCase('kubectl-annotate', AREA, 'kubectl annotate', kubectl(['annotate', 'pvc', 'claim', '-n', '{ns}', 'note=hello']), { setup: claimSetup }),
  defineCase('kubectl-patch-strategic', AREA, 'kubectl patch (strategic)', kubectl(['patch', 'pv', 'pv-{id}', '-p', '{"spec":{"persistentVolumeReclaimPolicy":"Delete"}}']), { setup: pvSetup }),
  defineCase('kubectl-patch-json', AREA, 'kubectl patch --type=json', kubectl(['patch', 'pv', 'pv-{id}', '--type=json', '-p', '[{"op":"add","path":"/metadata/labels/tier","value":"gold"}]']), { setup: pvSetup }),
  defineCase('kubectl-api-resources', AREA, 'kubectl api-resources', kubectl(['api-resources']), {
    view: { kind: 'lines', match: '^(NAME|persistentvolumes|persistentvolumeclaims|storageclasses|leases|namespaces|nodes|pods|events) ' },
  }),
];

export const kubectlCases: Case[] = cases;
