/**
 * The CSI delay and fault proxy (tools/csi) in front of a grpc-js echo server standing in for a
 * driver: calls pass byte for byte, the driver's errors pass through, and each fault does what it
 * says — including holding an answer the driver already gave until it is released.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Client, credentials, Metadata, Server, ServerCredentials, status, type ServiceError } from '@grpc/grpc-js';
import { CsiProxy } from '../../tools/csi/csi-proxy.js';
import { parseDuration, parseRule, parseStatus } from '../../tools/csi/faults.js';
import { CSI_METHOD_PATHS } from '../../tools/csi/methods.js';
import { applyCommand, parseProxyArgs } from '../../tools/csi/proxy.js';
import { waitFor } from '../helpers/wait.js';

const identity = (b: Buffer): Buffer => b;
const CREATE = CSI_METHOD_PATHS.get('CreateVolume')!;
const DELETE = CSI_METHOD_PATHS.get('DeleteVolume')!;

/** A stand-in driver: CreateVolume answers "echo:" + the request bytes; DeleteVolume fails NOT_FOUND. */
class EchoDriver {
  readonly seen: string[] = [];
  readonly server = new Server();
  constructor(readonly socket: string) {
    this.server.register(CREATE, (call: { request: Buffer }, cb: (e: Partial<ServiceError> | null, v?: Buffer) => void) => {
      this.seen.push(`CreateVolume ${call.request.toString('hex')}`);
      cb(null, Buffer.concat([Buffer.from('echo:'), call.request]));
    }, identity, identity, 'unary');
    this.server.register(DELETE, (call: { request: Buffer }, cb: (e: Partial<ServiceError> | null, v?: Buffer) => void) => {
      this.seen.push('DeleteVolume');
      cb({ code: status.NOT_FOUND, details: 'no such volume' });
    }, identity, identity, 'unary');
  }
  start(): Promise<void> {
    return new Promise((resolve, reject) => this.server.bindAsync(`unix:${this.socket}`, ServerCredentials.createInsecure(), (e) => (e ? reject(e) : resolve())));
  }
}

function call(client: Client, path: string, body: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(path, identity, identity, body, new Metadata(), {}, (err, value) => (err ? reject(err) : resolve(value!)));
  });
}

async function rejection(p: Promise<unknown>): Promise<ServiceError> {
  try {
    await p;
  } catch (err) {
    return err as ServiceError;
  }
  assert.fail('the call succeeded');
}

const dir = mkdtempSync(join(tmpdir(), 'csi-proxy-test-'));
const driver = new EchoDriver(join(dir, 'driver.sock'));
let proxy: CsiProxy;
let client: Client;
/** Bytes that are not valid UTF-8 or protobuf on purpose: the proxy must not look inside. */
const BODY = Buffer.from([0x0a, 0xff, 0x00, 0x80, 0x7f]);

before(async () => {
  await driver.start();
  proxy = await CsiProxy.start({ listen: join(dir, 'proxy.sock'), driver: driver.socket });
  client = new Client(`unix:${proxy.address}`, credentials.createInsecure());
});

after(async () => {
  client.close();
  await proxy.stop();
  driver.server.forceShutdown();
  rmSync(dir, { recursive: true, force: true });
});

test('a call passes through the proxy byte for byte and the driver\'s answer comes back unchanged', async () => {
  const answer = await call(client, CREATE, BODY);
  assert.deepEqual(answer, Buffer.concat([Buffer.from('echo:'), BODY]));
  assert.equal(driver.seen.at(-1), `CreateVolume ${BODY.toString('hex')}`);
});

test('the driver\'s gRPC error code and message reach the caller', async () => {
  const err = await rejection(call(client, DELETE, BODY));
  assert.equal(err.code, status.NOT_FOUND);
  assert.equal(err.details, 'no such volume');
});

test('a fail rule answers its code without calling the driver, and lifts itself after its count', async () => {
  const before = driver.seen.length;
  proxy.setRule({ method: 'CreateVolume', fault: { kind: 'fail', code: status.UNAVAILABLE }, times: 1 });
  assert.equal((await rejection(call(client, CREATE, BODY))).code, status.UNAVAILABLE);
  assert.equal(driver.seen.length, before, 'the driver never saw the failed call');
  await call(client, CREATE, BODY);
  assert.equal(driver.seen.length, before + 1, 'the second call went through');
});

test('hang-answer: the driver has done the call, the caller hears nothing until the answer is released', async () => {
  proxy.setRule({ method: 'CreateVolume', fault: { kind: 'hang', when: 'after' }, times: 1 });
  const before = driver.seen.length;
  let answered = false;
  const pending = call(client, CREATE, BODY).then((b) => {
    answered = true;
    return b;
  });
  await proxy.waitForHeld('CreateVolume', 1, 10_000, 'after');
  assert.equal(driver.seen.length, before + 1, 'the driver answered already');
  assert.equal(answered, false, 'the caller is still waiting');
  assert.equal(proxy.release('CreateVolume'), 1);
  assert.deepEqual(await pending, Buffer.concat([Buffer.from('echo:'), BODY]));
  assert.equal(proxy.held(), 0);
});

test('hang: the call is not forwarded until released', async () => {
  proxy.setRule({ method: 'CreateVolume', fault: { kind: 'hang', when: 'before' } });
  const before = driver.seen.length;
  const pending = call(client, CREATE, BODY);
  await proxy.waitForHeld('CreateVolume', 1, 10_000, 'before');
  assert.equal(driver.seen.length, before, 'the driver has not seen it');
  proxy.clearRule('CreateVolume');
  proxy.release();
  await pending;
  assert.equal(driver.seen.length, before + 1);
});

test('delay-answer: the caller gets the driver\'s answer only after the driver has handled the call', async () => {
  proxy.setRule({ method: 'CreateVolume', fault: { kind: 'delay', when: 'after', ms: 2000 }, times: 1 });
  const before = driver.seen.length;
  let answered = false;
  const pending = call(client, CREATE, BODY).then(() => (answered = true));
  await waitFor(() => driver.seen.length > before, 'the driver to see the call');
  assert.equal(answered, false, 'the answer is held back by the delay');
  await pending;
});

test('a rule changed while running takes effect on the next call: set, then cleared', async () => {
  applyCommand(proxy, 'fail DeleteVolume=ABORTED');
  assert.equal((await rejection(call(client, DELETE, BODY))).code, status.ABORTED);
  assert.equal(applyCommand(proxy, 'clear DeleteVolume'), 'cleared');
  assert.equal((await rejection(call(client, DELETE, BODY))).code, status.NOT_FOUND, 'the driver answers again');
});

test('the command line reads faults as <Method>=<value>, with a count after *', () => {
  const cmd = parseProxyArgs(['--listen', '/a', '--driver', '/b', '--delay', 'CreateVolume=5s', '--fail', 'DeleteVolume*2=unavailable', '--hang-answer', 'CreateVolume']);
  assert.deepEqual(cmd.rules, [
    { method: 'CreateVolume', times: undefined, fault: { kind: 'delay', when: 'before', ms: 5000 } },
    { method: 'DeleteVolume', times: 2, fault: { kind: 'fail', code: status.UNAVAILABLE } },
    { method: 'CreateVolume', times: undefined, fault: { kind: 'hang', when: 'after' } },
  ]);
  assert.equal(parseDuration('250ms'), 250);
  assert.equal(parseStatus('4'), status.DEADLINE_EXCEEDED);
  assert.throws(() => parseRule('delay', 'CreateVolumes=1s'), /unknown CSI method "CreateVolumes"/);
  assert.throws(() => parseRule('fail', 'CreateVolume=OK'), /not a gRPC error code/);
  assert.throws(() => parseRule('delay', 'CreateVolume'), /give a duration/);
  assert.throws(() => parseProxyArgs(['--listen', '/a']), /--listen and --driver are required/);
});

test('node dist/tools/csi/proxy.js forwards with the faults its flags give, and stops on SIGTERM', async () => {
  const socket = join(dir, 'cli.sock');
  const script = new URL('../../tools/csi/proxy.js', import.meta.url).pathname;
  const child = spawn(process.execPath, [script, '--listen', socket, '--driver', driver.socket, '--fail', 'CreateVolume=RESOURCE_EXHAUSTED'], {
    detached: true,
    stdio: ['pipe', 'ignore', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const cliClient = new Client(`unix:${socket}`, credentials.createInsecure());
  try {
    const err = await waitFor(async () => {
      const e = await rejection(call(cliClient, CREATE, BODY));
      return e.code === status.RESOURCE_EXHAUSTED ? e : undefined;
    }, 'the CLI proxy to answer the injected code');
    assert.equal(err.code, status.RESOURCE_EXHAUSTED);
    assert.equal((await rejection(call(cliClient, DELETE, BODY))).code, status.NOT_FOUND, 'other methods reach the driver');
  } finally {
    cliClient.close();
    if (child.exitCode === null) process.kill(-child.pid!, 'SIGTERM');
  }
  assert.equal(await exited, 0);
});

test('a proxy that stops answers the calls it holds UNAVAILABLE instead of leaving them hanging', async () => {
  const second = await CsiProxy.start({ listen: join(dir, 'second.sock'), driver: driver.socket });
  const secondClient = new Client(`unix:${second.address}`, credentials.createInsecure());
  try {
    second.setRule({ method: 'CreateVolume', fault: { kind: 'hang', when: 'before' } });
    const pending = rejection(call(secondClient, CREATE, BODY));
    await second.waitForHeld('CreateVolume', 1, 10_000);
    await second.stop();
    assert.equal((await pending).code, status.UNAVAILABLE);
  } finally {
    secondClient.close();
    await second.stop();
  }
});
