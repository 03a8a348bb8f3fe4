import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ConflictError,
  InvalidError,
  isAlreadyExists,
  isConflict,
  isNotFound,
  NotFoundError,
  AlreadyExistsError,
} from '@pv-controller/kube/errors.js';

test('a conflict error carries the real Status body', () => {
  const s = new ConflictError({ kind: 'persistentvolumes', name: 'pv1' }).toStatus();
  assert.equal(s.code, 409);
  assert.equal(s.reason, 'Conflict');
  assert.match(s.message ?? '', /Operation cannot be fulfilled on persistentvolumes "pv1": the object has been modified/);
  assert.deepEqual(s.details, { name: 'pv1', kind: 'persistentvolumes' });
});

test('an invalid error lists its causes in the message and details', () => {
  const e = new InvalidError({ kind: 'PersistentVolume', name: 'pv1' }, [
    { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.capacity' },
    { reason: 'FieldValueNotSupported', message: 'Unsupported value: "X"', field: 'spec.accessModes[0]' },
  ]);
  const s = e.toStatus();
  assert.equal(s.code, 422);
  assert.equal(s.details?.causes?.length, 2);
  assert.equal(
    s.message,
    'PersistentVolume "pv1" is invalid: [spec.capacity: Required value, spec.accessModes[0]: Unsupported value: "X"]',
  );
});

test('client errors are classified by code and reason, not by class', () => {
  const fromClient = { code: 409, body: JSON.stringify({ kind: 'Status', reason: 'AlreadyExists', code: 409 }) };
  assert.equal(isAlreadyExists(fromClient), true);
  assert.equal(isConflict(fromClient), false);
  assert.equal(isConflict({ code: 409, body: { reason: 'Conflict' } }), true);
  assert.equal(isNotFound(new NotFoundError({ kind: 'persistentvolumes', name: 'x' })), true);
  assert.equal(isAlreadyExists(new AlreadyExistsError({ kind: 'persistentvolumes', name: 'x' })), true);
  assert.equal(isNotFound(new Error('plain')), false);
});
