/**
 * One CSI call with the plugin's deadline and the caller's abort signal, its failure turned into
 * a PluginError: an outcome the driver may still be working on (`in-progress`: deadline,
 * cancelled, unavailable, aborted, resource exhausted) is InProgress — the same call is repeated
 * until it answers, with nothing cleaned up in between —
 * and a `final` answer is not, carrying the driver's message (external-provisioner's
 * ProvisioningInBackground / ProvisioningFinished). Anything else (the socket is gone, a bug) is
 * retryable: nothing says the driver did not act.
 */
import { CsiCallError, type CsiCallOptions } from '../../csi/types.js';
import { PluginError } from '../api/errors.js';

export function isNotFound(err: unknown): boolean {
  return err instanceof CsiCallError && err.codeName === 'NOT_FOUND';
}

export function toPluginError(err: unknown, what: string): unknown {
  if (err instanceof PluginError) return err;
  if (err instanceof Error && err.name === 'AbortError') return err;
  if (err instanceof CsiCallError) {
    const message = `${what}: ${err.codeName}: ${err.details}`;
    return err.kind === 'final' ? new PluginError('Backend', message, false, { cause: err }) : new PluginError('InProgress', message, true, { cause: err });
  }
  const detail = err instanceof Error ? err.message : String(err);
  return new PluginError('Transient', `${what}: ${detail}`, true, { cause: err });
}

export function callOptions(timeoutMs: number, signal: AbortSignal | undefined): CsiCallOptions {
  return signal ? { timeoutMs, signal } : { timeoutMs };
}

/** Runs a call and rethrows its failure as a PluginError (see above). */
export async function csiCall<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw toPluginError(err, what);
  }
}

/**
 * Every entry of a paged List call (ListVolumes, ListSnapshots): pages until the driver gives no
 * next token (or the one it was given), bounded by `maxPages` so a driver that keeps handing out
 * new tokens cannot loop forever.
 */
export async function allPages<T>(
  what: string,
  page: (startingToken: string) => Promise<{ entries: T[]; nextToken: string }>,
  maxPages = 10_000,
): Promise<T[]> {
  const out: T[] = [];
  let token = '';
  for (let n = 0; n < maxPages; n++) {
    const answer = await csiCall(what, () => page(token));
    out.push(...answer.entries);
    if (answer.nextToken === '' || answer.nextToken === token) return out;
    token = answer.nextToken;
  }
  throw new PluginError('Backend', `${what} did not end after ${maxPages} pages`, false);
}
