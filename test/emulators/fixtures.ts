/** Helpers shared by the cloud plugin tests: requests, a fast retry policy, a log capture. */
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import type { CloudPluginOptions } from '../../src/plugins/cloud-common/options.js';
import type { ProvisionRequest } from '../../src/plugins/api/core.js';
import { backingName } from '../../src/plugins/naming.js';

export const GIB = 1024n ** 3n;

/** Retries quickly so fault-injection tests stay short; calls time out after `callTimeoutMs`. */
export function fastCloudOptions(overrides: Partial<CloudPluginOptions> = {}): CloudPluginOptions {
  return {
    retry: { maxAttempts: 5, baseDelayMs: 1, maxDelayMs: 5, callTimeoutMs: 2_000 },
    wait: { timeoutMs: 5_000, intervalMs: 1, maxIntervalMs: 5 },
    logger: pino({ level: 'silent' }),
    ...overrides,
  };
}

export interface RequestFields {
  clusterName?: string;
  pvName?: string;
  claimName?: string;
  namespace?: string;
  requestBytes?: bigint;
  parameters?: Record<string, string>;
  maxNameLength?: number;
}

/** A ProvisionRequest as the controller builds it (backing name from naming.ts). */
export function provisionRequest(fields: RequestFields = {}, extra: Partial<ProvisionRequest> = {}): ProvisionRequest {
  const clusterName = fields.clusterName ?? 'kubernetes';
  const pvName = fields.pvName ?? 'pvc-0b7c5b1e-6f0e-4c55-9d2c-3c2b7c1f9a01';
  return {
    backingName: backingName(clusterName, pvName, fields.maxNameLength ?? 255),
    clusterName,
    pvName,
    claim: {
      name: fields.claimName ?? 'data',
      namespace: fields.namespace ?? 'default',
      uid: '0b7c5b1e-6f0e-4c55-9d2c-3c2b7c1f9a01',
      labels: {},
      annotations: {},
    },
    requestBytes: fields.requestBytes ?? 10n * GIB,
    accessModes: ['ReadWriteOnce'],
    volumeMode: 'Filesystem',
    parameters: fields.parameters ?? {},
    mountOptions: [],
    ...extra,
  };
}

/** A pino logger at trace level whose every line is kept, for "no secret is logged" checks. */
export function captureLogger(): { logger: Logger; text: () => string } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { logger: pino({ level: 'trace' }, sink), text: () => lines.join('') };
}
