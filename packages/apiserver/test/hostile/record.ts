/**
 * Records kube-apiserver's answer to every corpus request into expected.json:
 * `node dist/packages/apiserver/test/hostile/record.js` with REAL_SERVER, REAL_TOKEN and REAL_CA set (a real
 * control plane, e.g. `npm run cluster:up`). The fixtures are created first and deleted after;
 * every corpus request is refused or a dry run, so nothing else is written there.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { FIXTURES, HOSTILE_REQUESTS } from './corpus.js';
import { send, summarize, type AnswerSummary, type ServerAddress } from './send.js';

const EXPECTED = new URL('../../../../../packages/apiserver/test/hostile/expected.json', import.meta.url).pathname;

async function main(): Promise<void> {
  const { REAL_SERVER, REAL_TOKEN, REAL_CA } = process.env;
  if (!REAL_SERVER || !REAL_TOKEN || !REAL_CA) throw new Error('set REAL_SERVER, REAL_TOKEN and REAL_CA');
  const server: ServerAddress = { url: REAL_SERVER, token: REAL_TOKEN, caPem: readFileSync(REAL_CA, 'utf8') };
  for (const f of FIXTURES) await send(server, { name: 'fixture', method: 'POST', path: f.path, body: JSON.stringify(f.body) });
  const expected: Record<string, AnswerSummary> = {};
  try {
    for (const req of HOSTILE_REQUESTS) {
      expected[req.name] = summarize(await send(server, req));
      process.stdout.write(`${req.name}: ${expected[req.name].code} ${expected[req.name].message?.slice(0, 100) ?? expected[req.name].kind ?? ''}\n`);
    }
  } finally {
    for (const f of [...FIXTURES].reverse()) {
      const meta = f.body.metadata as { name: string };
      await send(server, { name: 'cleanup', method: 'DELETE', path: `${f.path}/${meta.name}` });
    }
  }
  writeFileSync(EXPECTED, `${JSON.stringify(expected, null, 2)}\n`);
}

await main();
