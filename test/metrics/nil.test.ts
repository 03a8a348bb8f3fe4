import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NilMetricsProvider } from '../../src/metrics/nil.js';
import { MetricsError, MetricsNotSupportedError } from '../../src/metrics/provider.js';

test('the nil provider rejects with MetricsNotSupportedError naming the volume', async () => {
  const provider = new NilMetricsProvider('aws-ebs volume "vol-1"');
  await assert.rejects(provider.getMetrics(), (err: unknown) => {
    assert.ok(err instanceof MetricsNotSupportedError);
    assert.ok(err instanceof MetricsError, 'callers that catch MetricsError also catch it');
    assert.equal(err.message, 'metrics are not supported for aws-ebs volume "vol-1"');
    return true;
  });
});
