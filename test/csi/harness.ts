/** What the CSI tests share: a fake driver and a connection to it, started and stopped around a file or a test. */
import { after, before, beforeEach } from 'node:test';
import { Writable } from 'node:stream';
import { connectCsi, type ConnectCsiOptions } from '../../src/csi/client.js';
import type { CsiConnection } from '../../src/csi/types.js';
import { FakeCsiDriver, type FakeDriverOptions } from './fake-driver.js';

export interface DriverAndConnection {
  driver: FakeCsiDriver;
  conn: CsiConnection;
}

/**
 * One driver and one connection for every test of the file (started in `before`, stopped in
 * `after`); scripted handlers and the call log are reset before each test, the volumes stay.
 */
export function driverPerFile(options: FakeDriverOptions = {}): DriverAndConnection {
  const shared = {} as DriverAndConnection;
  before(async () => {
    shared.driver = await FakeCsiDriver.start(options);
    shared.conn = await connectCsi(shared.driver.socketPath);
  });
  after(async () => {
    shared.conn?.close();
    await shared.driver?.stop();
  });
  beforeEach(() => shared.driver.reset());
  return shared;
}

/** Runs `fn` with a driver of its own and a connection to it, both stopped however it ends. */
export async function withDriver<T>(
  fn: (it: DriverAndConnection) => Promise<T>,
  options: FakeDriverOptions = {},
  connectOptions: ConnectCsiOptions = {},
): Promise<T> {
  const driver = await FakeCsiDriver.start(options);
  let conn: CsiConnection | undefined;
  try {
    conn = await connectCsi(driver.socketPath, connectOptions);
    return await fn({ driver, conn });
  } finally {
    conn?.close();
    await driver.stop();
  }
}

/** A stream that keeps the lines written to it (a logger's destination). */
export function lineCollector(): { out: Writable; lines: string[] } {
  const lines: string[] = [];
  const out = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  return { out, lines };
}
