import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classesLine, type ClassSummary } from '../../src/cli/banner.js';

const OWN = { name: 'standard', kind: 'host-path' };
const standard = (annotations?: Record<string, string>): ClassSummary => ({ name: 'standard', provisioner: 'kubernetes.io/host-path', ...(annotations ? { annotations } : {}), creationTimestamp: '2026-01-01T00:00:00.000Z' });
const DEFAULT = { 'storageclass.kubernetes.io/is-default-class': 'true' };

test('the banner calls up\'s class the default only while it is the one default', () => {
  assert.equal(classesLine([standard(DEFAULT)], OWN), 'StorageClass "standard" (host-path, default) is ready.');
});

test('another default class is named, with its provisioner, and up\'s class is not called the default', () => {
  const fast: ClassSummary = { name: 'fast', provisioner: 'ebs.csi.aws.com', annotations: DEFAULT, creationTimestamp: '2026-02-01T00:00:00.000Z' };
  assert.equal(classesLine([standard({ 'storageclass.kubernetes.io/is-default-class': 'false' }), fast], OWN), 'StorageClass "standard" (host-path) is ready; a claim without a class gets "fast" (provisioner ebs.csi.aws.com).');
});

test('no default: the banner says a claim must name a class', () => {
  assert.equal(classesLine([standard()], OWN), 'StorageClass "standard" (host-path) is ready; no StorageClass is the default, so a claim must name one (storageClassName).');
});

test('several defaults: the newest is the one a claim gets, as kube-apiserver\'s admission picks, and all are listed', () => {
  const newer: ClassSummary = { name: 'newer', provisioner: 'p', annotations: { 'storageclass.beta.kubernetes.io/is-default-class': 'true' }, creationTimestamp: '2026-03-01T00:00:00.000Z' };
  assert.equal(
    classesLine([standard(DEFAULT), newer], OWN),
    'StorageClass "standard" (host-path, default) is ready; a claim without a class gets "newer" (provisioner p) (of 2 defaults: newer, standard, the newest).',
  );
});
