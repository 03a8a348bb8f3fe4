/**
 * What the CSI delay proxy may do to a call, and the text form humans give it
 * (`CreateVolume=5s`, `CreateVolume=UNAVAILABLE`, `CreateVolume`): one parser for the proxy's
 * flags and for the commands it reads on stdin while it runs.
 */
import { status } from '@grpc/grpc-js';
import { csiMethod, type CsiMethodName } from './methods.js';

/**
 * - `delay`: wait `ms`, `before` forwarding the call, or `after` the driver answered (the driver
 *   has done it; the caller has not heard yet);
 * - `fail`: answer the gRPC `code` without forwarding;
 * - `hang`: hold the call `before` forwarding it, or hold the driver's answer `after`, until
 *   released (`CsiProxy.release`).
 */
export type CsiFault =
  | { kind: 'delay'; ms: number; when: 'before' | 'after' }
  | { kind: 'fail'; code: status; message?: string }
  | { kind: 'hang'; when: 'before' | 'after' };

export interface CsiRule {
  method: CsiMethodName;
  fault: CsiFault;
  /** How many calls suffer it before the rule lifts itself (default: until cleared). */
  times?: number;
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000 };

/** `250ms`, `5s`, `1.5m` → milliseconds. */
export function parseDuration(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(text.trim());
  if (!m) throw new Error(`"${text}" is not a duration (e.g. 500ms, 5s, 1m)`);
  return Math.round(Number(m[1]) * UNITS[m[2]]);
}

/** `UNAVAILABLE`, `unavailable` or `14` → the gRPC status code. */
export function parseStatus(text: string): status {
  const upper = text.trim().toUpperCase();
  if (/^\d+$/.test(upper) && status[Number(upper)] !== undefined) return Number(upper) as status;
  const code = (status as unknown as Record<string, number | undefined>)[upper];
  if (code === undefined || upper === 'OK') throw new Error(`"${text}" is not a gRPC error code (e.g. UNAVAILABLE, DEADLINE_EXCEEDED)`);
  return code as status;
}

/** `Method` or `Method=value` (`value` optional), with `*N` after the method for a count. */
function splitSpec(spec: string): { method: CsiMethodName; value?: string; times?: number } {
  const [head, value] = spec.split('=', 2);
  const [name, count] = head.split('*', 2);
  const times = count === undefined ? undefined : Number(count);
  if (times !== undefined && (!Number.isInteger(times) || times < 1)) throw new Error(`"${spec}": the count after * must be a positive integer`);
  return { method: csiMethod(name.trim()), value, times };
}

/** The rule a flag or stdin command gives: the option's name says the fault, the spec the method and value. */
export function parseRule(option: string, spec: string): CsiRule {
  const { method, value, times } = splitSpec(spec);
  const needs = (what: string): string => {
    if (value === undefined || value === '') throw new Error(`--${option} ${spec}: give ${what} after "="`);
    return value;
  };
  switch (option) {
    case 'delay':
      return { method, times, fault: { kind: 'delay', when: 'before', ms: parseDuration(needs('a duration')) } };
    case 'delay-answer':
      return { method, times, fault: { kind: 'delay', when: 'after', ms: parseDuration(needs('a duration')) } };
    case 'fail':
      return { method, times, fault: { kind: 'fail', code: parseStatus(needs('a gRPC code')) } };
    case 'hang':
      return { method, times, fault: { kind: 'hang', when: 'before' } };
    case 'hang-answer':
      return { method, times, fault: { kind: 'hang', when: 'after' } };
    default:
      throw new Error(`unknown fault "${option}": delay, delay-answer, fail, hang, hang-answer`);
  }
}

export const FAULT_OPTIONS = ['delay', 'delay-answer', 'fail', 'hang', 'hang-answer'] as const;
