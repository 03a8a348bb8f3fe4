import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startProgress } from '../../bench/progress.js';

async function until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met before the deadline');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('bench progress', () => {
  it('reports scenario, done/total and a rate periodically, then a closing line', async () => {
    const lines: string[] = [];
    const progress = startProgress('bind memory', 10, 'pairs', { write: (l) => lines.push(l) }, 10);
    progress.advance(4);
    await until(() => lines.length > 0);
    assert.match(lines[0], /^\[bind memory\] 4\/10 pairs \(40%\) \d+ pairs\/s$/);
    progress.advance(6);
    progress.finish();
    progress.finish(); // idempotent
    const closing = lines.filter((l) => l.includes('done:'));
    assert.equal(closing.length, 1);
    assert.match(closing[0], /^\[bind memory\] done: 10\/10 pairs in \d+\.\d s \(\d+ pairs\/s\)$/);
  });
});
