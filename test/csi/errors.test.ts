import { test } from 'node:test';
import assert from 'node:assert/strict';
import { status } from '@grpc/grpc-js';
import { codeName, failureKind, goCodeName } from '../../src/csi/errors.js';

test('only the codes whose outcome is unknown are in-progress; every other code is final', () => {
  const inProgress = ['CANCELLED', 'DEADLINE_EXCEEDED', 'UNAVAILABLE', 'ABORTED', 'RESOURCE_EXHAUSTED'];
  for (let code = 1; code <= 16; code++) {
    assert.equal(failureKind(code), inProgress.includes(codeName(code)) ? 'in-progress' : 'final', codeName(code));
  }
});

test("codes are named as grpc-js names them, and in metrics as Go's codes.Code.String() does", () => {
  assert.equal(codeName(status.INVALID_ARGUMENT), 'INVALID_ARGUMENT');
  assert.equal(codeName(99), 'CODE_99');
  const go: Record<number, string> = {
    [status.OK]: 'OK',
    [status.CANCELLED]: 'Canceled',
    [status.UNKNOWN]: 'Unknown',
    [status.INVALID_ARGUMENT]: 'InvalidArgument',
    [status.DEADLINE_EXCEEDED]: 'DeadlineExceeded',
    [status.NOT_FOUND]: 'NotFound',
    [status.ALREADY_EXISTS]: 'AlreadyExists',
    [status.PERMISSION_DENIED]: 'PermissionDenied',
    [status.RESOURCE_EXHAUSTED]: 'ResourceExhausted',
    [status.FAILED_PRECONDITION]: 'FailedPrecondition',
    [status.ABORTED]: 'Aborted',
    [status.OUT_OF_RANGE]: 'OutOfRange',
    [status.UNIMPLEMENTED]: 'Unimplemented',
    [status.INTERNAL]: 'Internal',
    [status.UNAVAILABLE]: 'Unavailable',
    [status.DATA_LOSS]: 'DataLoss',
    [status.UNAUTHENTICATED]: 'Unauthenticated',
  };
  for (const [code, name] of Object.entries(go)) assert.equal(goCodeName(Number(code)), name);
  assert.equal(goCodeName(99), 'Code(99)');
});
