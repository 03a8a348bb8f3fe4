/** The /status subresource: what it changes, what it ignores, and where it does not exist. */
import type { Case } from './case.js';
import { ALL_KINDS, EVENT, LEASE, MERGE, PV, PVC, SC, create, defineCase, get, item, patch, put, tag, a } from './fixtures.js';

const AREA = 'status';

function perKind(): Case[] {
  return ALL_KINDS.filter((k) => k.status).flatMap((k) => {
    const t = tag(k);
    const name = `${t}-{id}`;
    const status = `${item(k, name)}/status`;
    const setup = [create(k, name)];
    return [
      defineCase(`${t}-status-get`, AREA, `get the status of ${a(k)}`, get(status), { resource: k.resource, setup }),
      defineCase(`${t}-status-put`, AREA, `update the status of ${a(k)}`, put(status, undefined, { edit: { of: 'obj', merge: k.status! } }), { resource: k.resource, setup }),
      defineCase(`${t}-status-merge-patch`, AREA, `merge patch of the status of ${a(k)}`, patch(status, MERGE, k.status), { resource: k.resource, setup }),
      defineCase(`${t}-status-ignores-spec`, AREA, `a /status write leaves the rest of ${a(k)} alone`, patch(status, MERGE, { ...k.status, metadata: { labels: { via: 'status' } }, spec: { fidelityIgnored: null } }), {
        resource: k.resource,
        setup,
      }),
    ];
  });
}

const extras: Case[] = [
  ...[SC, LEASE, EVENT].map((k) =>
    defineCase(`${tag(k)}-status-missing`, AREA, `${a(k)} has no /status`, get(`${item(k, `${tag(k)}-{id}`)}/status`), { resource: k.resource, setup: [create(k, `${tag(k)}-{id}`)] }),
  ),
  defineCase('pv-status-phase-invalid', AREA, 'a /status write with an unknown phase', patch(`${item(PV, 'pv-{id}')}/status`, MERGE, { status: { phase: 'Sleeping' } }), {
    resource: PV.resource,
    setup: [create(PV, 'pv-{id}')],
  }),
  defineCase('pvc-status-resize-condition', AREA, 'a claim status with a resize condition', patch(`${item(PVC, 'claim')}/status`, MERGE, {
    status: { phase: 'Bound', capacity: { storage: '1Gi' }, conditions: [{ type: 'Resizing', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }] },
  }), { resource: PVC.resource, setup: [create(PVC, 'claim')] }),
  defineCase('pv-status-missing-object', AREA, 'the status of a PersistentVolume that does not exist', get(`${item(PV, 'pv-{id}')}/status`), { resource: PV.resource }),
];

export const statusCases: Case[] = [...perKind(), ...extras];
