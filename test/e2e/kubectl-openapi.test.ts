/**
 * kubectl, unmodified, reading the embedded server's OpenAPI: explain, client-side validation
 * settings of create/apply, diff, and edit (EDITOR set to a script).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmod } from 'node:fs/promises';
import { kubectlPath, NO_KUBECTL } from '../helpers/apiserver.js';
import { kubectlSession } from '../helpers/kubectl-session.js';

const skip = kubectlPath() === undefined ? NO_KUBECTL : false;
const { run: kubectl, succeeds, manifest } = kubectlSession(skip);

const PV = (capacity: string, extra = ''): string => `apiVersion: v1
kind: PersistentVolume
metadata:
  name: explained
spec:
  capacity:
    storage: ${capacity}
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  hostPath:
    path: /tmp/explained
${extra}`;

test('kubectl explain pv prints the PersistentVolume schema with its fields', { skip }, async () => {
  const out = await succeeds('explain', 'pv');
  assert.match(out, /^KIND:\s+PersistentVolume\nVERSION:\s+v1\n/);
  assert.match(out, /PersistentVolume \(PV\) is a storage resource provisioned by an administrator/);
  assert.match(out, /\n {2}spec\t<PersistentVolumeSpec>\n/);
  assert.match(out, /\n {2}status\t<PersistentVolumeStatus>\n/);
});

test('kubectl explain pvc.spec.resources describes VolumeResourceRequirements', { skip }, async () => {
  const out = await succeeds('explain', 'pvc.spec.resources');
  assert.match(out, /FIELD: resources <VolumeResourceRequirements>/);
  assert.match(out, /\n {2}requests\t<map\[string\]Quantity>\n/);
  assert.match(out, /\n {2}limits\t<map\[string\]Quantity>\n/);
});

test('kubectl explain sc --recursive walks nested fields down to allowedTopologies keys', { skip }, async () => {
  const out = await succeeds('explain', 'sc', '--recursive');
  assert.match(out, /^GROUP:\s+storage.k8s.io\nKIND:\s+StorageClass\n/);
  assert.match(out, /\n {2}allowedTopologies\t<\[\]TopologySelectorTerm>\n {4}matchLabelExpressions\t<\[\]TopologySelectorLabelRequirement>\n {6}key\t<string> -required-\n/);
  assert.match(out, /\n {2}volumeBindingMode\t<string>\n/);
});

test('kubectl explain of an unknown field names the field kube-apiserver\'s schema lacks', { skip }, async () => {
  const r = await kubectl(['explain', 'pv.spec.nosuchfield']);
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /field "nosuchfield" does not exist/);
});

test('create --validate=strict rejects an unknown field; apply --validate=warn creates with a warning', { skip }, async () => {
  const path = await manifest('bogus.yaml', PV('1Gi', '  bogusField: 1\n'));
  const strict = await kubectl(['create', '--validate=strict', '-f', path]);
  assert.equal(strict.code, 1);
  assert.match(strict.stderr, /strict decoding error: unknown field "spec.bogusField"/);
  const warn = await kubectl(['apply', '--validate=warn', '-f', path]);
  assert.equal(warn.code, 0, warn.stderr);
  assert.match(warn.stderr, /Warning: unknown field "spec.bogusField"/);
  assert.match(warn.stdout, /persistentvolume\/explained created/);
  const again = await kubectl(['apply', '--validate=strict', '-f', path]);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /strict decoding error: unknown field "spec.bogusField"/);
});

test('kubectl diff shows the changed capacity and exits 1; applying it lands the change', { skip }, async () => {
  const path = await manifest('pv.yaml', PV('2Gi'));
  const diff = await kubectl(['diff', '-f', path]);
  assert.equal(diff.code, 1, `kubectl diff: ${diff.stderr}`);
  assert.match(diff.stdout, /\n-\s+storage: 1Gi\n\+\s+storage: 2Gi\n/);
  assert.match(await succeeds('apply', '-f', path), /persistentvolume\/explained configured/);
  const unchanged = await kubectl(['diff', '-f', path]);
  assert.equal(unchanged.code, 0, unchanged.stdout + unchanged.stderr);
});

test('kubectl edit saves what the editor changed', { skip }, async () => {
  const editor = await manifest('editor.sh', '#!/bin/sh\nsed -i "s/persistentVolumeReclaimPolicy: Retain/persistentVolumeReclaimPolicy: Delete/" "$1"\n');
  await chmod(editor, 0o755);
  const r = await kubectl(['edit', 'pv', 'explained'], { EDITOR: editor, KUBE_EDITOR: editor });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /persistentvolume\/explained edited/);
  const pv = JSON.parse(await succeeds('get', 'pv', 'explained', '-o', 'json'));
  assert.equal(pv.spec.persistentVolumeReclaimPolicy, 'Delete');
  assert.equal(pv.spec.capacity.storage, '2Gi');
});
