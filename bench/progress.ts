/**
 * Progress of long runs, to stderr: one line a second per running task with done/total and the
 * rate over the last second, and a closing line with the overall rate. Never on stdout, which
 * carries only the results table.
 */

export interface ProgressTask {
  /** Counts `count` more units done. */
  advance(count?: number): void;
  done(): number;
  /** Stops the ticker and prints the closing line. */
  finish(): void;
}

export interface ProgressSink {
  write(line: string): void;
}

const stderrSink: ProgressSink = { write: (line) => process.stderr.write(`${line}\n`) };

export function startProgress(
  label: string,
  total: number,
  unit = 'ops',
  sink: ProgressSink = stderrSink,
  intervalMs = 1000,
): ProgressTask {
  const startedAt = performance.now();
  let done = 0;
  let lastDone = 0;
  let lastAt = startedAt;
  let finished = false;
  const tick = (): void => {
    const now = performance.now();
    const rate = ((done - lastDone) * 1000) / Math.max(1, now - lastAt);
    lastDone = done;
    lastAt = now;
    sink.write(`[${label}] ${done}/${total} ${unit} (${percent(done, total)}) ${Math.round(rate)} ${unit}/s`);
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return {
    advance(count = 1) {
      done += count;
    },
    done: () => done,
    finish() {
      if (finished) return;
      finished = true;
      clearInterval(timer);
      const seconds = (performance.now() - startedAt) / 1000;
      const rate = done / Math.max(seconds, 1e-9);
      sink.write(`[${label}] done: ${done}/${total} ${unit} in ${seconds.toFixed(1)} s (${Math.round(rate)} ${unit}/s)`);
    },
  };
}

/** A one-off status line ("starting API server ..."). */
export function note(message: string): void {
  process.stderr.write(`${message}\n`);
}

function percent(done: number, total: number): string {
  return total > 0 ? `${Math.floor((done * 100) / total)}%` : '-';
}
