/**
 * Watches that never read cost the server a bounded amount of memory whatever the collection
 * size (the initial events included), are closed once they make no progress, and leave the
 * server answering. Measured in this process (the embedded server runs here): heap plus
 * external memory after a full garbage collection.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { withEmbeddedTestApiServer } from '../../../test/helpers/apiserver.js';
import { waitFor } from '../../../test/helpers/wait.js';
import { api } from './http-client.js';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const LEASES = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
const WATCHES = 20;
const WINDOW = 256 * 1024;

/** Bytes held by this process's JavaScript heap and Buffers, after a full collection. */
function heldBytes(): number {
  collectGarbage();
  collectGarbage();
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
}

test(`${WATCHES} watches that never read a ~10 MB collection hold bounded memory, get closed, and /readyz answers meanwhile`, () =>
  withEmbeddedTestApiServer(
    async ({ server }) => {
      const filler = 'x'.repeat(100_000);
      for (let i = 0; i < 100; i++) {
        const res = await api(server, 'POST', LEASES, { body: { metadata: { name: `l${i}`, annotations: { filler } }, spec: {} } });
        assert.equal(res.status, 201);
      }
      const before = heldBytes();
      const streams: IncomingMessage[] = [];
      for (let i = 0; i < WATCHES; i++) {
        const res = await new Promise<IncomingMessage>((resolve, reject) => {
          const req = httpsRequest(new URL(`${LEASES}?watch=true`, server.url), { headers: { Authorization: `Bearer ${server.token}` }, ca: server.caPem }, resolve);
          req.on('error', reject);
          req.end();
        });
        res.pause();
        streams.push(res);
      }
      assert.equal((await api(server, 'GET', '/readyz')).status, 200);
      const grown = heldBytes() - before;
      // Each watch may queue a window (plus one object) beyond what the sockets took; the whole
      // initial burst of every watch would be ~200 MB.
      assert.ok(grown < WATCHES * (WINDOW + 512 * 1024), `memory grew by ${(grown / 1e6).toFixed(1)} MB with ${WATCHES} watches that never read`);

      await waitFor(() => server.stats().activeWatches === 0, 'the watches that never read to be closed');
      assert.equal((await api(server, 'GET', '/readyz')).status, 200);
      // A client that reads after all sees what was queued, then the end of the stream (and re-watches).
      await Promise.all(
        streams.map(
          (res) =>
            new Promise<void>((resolve, reject) => {
              res.on('end', resolve);
              res.on('error', reject);
              res.resume();
            }),
        ),
      );
    },
    { watchWindowBytes: WINDOW, watchStallMs: 500 },
  ));
