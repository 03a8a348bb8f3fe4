/**
 * The expand sub-suite (src/plugins/api/capabilities/expand.ts): a volume grows to at least the
 * size asked and a repeat changes nothing; a volume a plugin cannot grow is refused for good (a
 * PluginError that is not retryable), never retried forever.
 */
import assert from 'node:assert/strict';
import { quantityToBytes } from '@pv-controller/kube/quantity.js';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { canExpand } from '../../../src/plugins/api/capabilities/expand.js';
import { PluginError } from '../../../src/plugins/api/errors.js';
import { claimed, type ConformanceCheck, provisionedVolume, withSubject } from './subject.js';

const GIB = 1024n * 1024n * 1024n;

async function assertRefusedForGood(call: Promise<unknown>): Promise<void> {
  await assert.rejects(call, (err: unknown) => {
    assert.ok(err instanceof PluginError, `expected a PluginError, got ${String(err)}`);
    assert.equal(err.retryable, false, `a volume that cannot grow must be refused for good: ${err.message}`);
    return true;
  });
}

function withCapacity(pv: PersistentVolume, capacity: string): PersistentVolume {
  return { ...pv, spec: { ...pv.spec, capacity: { storage: capacity } } };
}

export const EXPAND_SUITE: readonly ConformanceCheck[] = [
  {
    name: 'expanding a volume gives at least the size asked, and a repeat keeps that size',
    run: (make) =>
      withSubject(make, async (s) => {
        const plugin = claimed(s.plugin, canExpand);
        const { req, pv } = await provisionedVolume(s);
        const sizeBytes = req.requestBytes + 2n * GIB;
        if (s.growable === false) return assertRefusedForGood(plugin.expand({ pv, sizeBytes }));
        const grown = await plugin.expand({ pv, sizeBytes });
        assert.ok(quantityToBytes(grown.capacity) >= sizeBytes, `expanded to ${grown.capacity}, asked ${sizeBytes} bytes`);
        const again = await plugin.expand({ pv: withCapacity(pv, grown.capacity), sizeBytes });
        assert.equal(quantityToBytes(again.capacity), quantityToBytes(grown.capacity));
        assert.equal(await s.backingExists(req.backingName), true);
      }),
  },
  {
    name: 'expanding a volume to the size it has is success',
    run: (make) =>
      withSubject(make, async (s) => {
        const plugin = claimed(s.plugin, canExpand);
        const { req, pv } = await provisionedVolume(s);
        const sizeBytes = quantityToBytes(String(pv.spec.capacity?.storage));
        if (s.growable === false) return assertRefusedForGood(plugin.expand({ pv, sizeBytes }));
        const same = await plugin.expand({ pv, sizeBytes });
        assert.ok(quantityToBytes(same.capacity) >= sizeBytes, `expanded to ${same.capacity}, had ${sizeBytes} bytes`);
        assert.equal(await s.backingExists(req.backingName), true);
      }),
  },
];
