/**
 * The node-scoped sub-suite (src/plugins/api/capabilities/node-scoped.ts): a node agent's plugin
 * serves its own node and no other; a plugin for every node serves any; recovery after a restart
 * keeps the volumes it finds.
 */
import assert from 'node:assert/strict';
import { isNodeScoped } from '../../../src/plugins/api/capabilities/node-scoped.js';
import { claimed, type ConformanceCheck, provisionedVolume, withSubject } from './subject.js';

const OTHER_NODE = 'conformance-other-node';

export const NODE_SCOPED_SUITE: readonly ConformanceCheck[] = [
  {
    name: 'serves the node it runs for and, when that is one node, no other',
    run: (make) =>
      withSubject(make, async (s) => {
        const plugin = claimed(s.plugin, isNodeScoped);
        if (s.nodeName === undefined) {
          assert.equal(plugin.servesNode(OTHER_NODE), true);
          assert.equal(plugin.servesNode(undefined), true);
          return;
        }
        assert.equal(plugin.servesNode(s.nodeName), true);
        assert.equal(plugin.servesNode(OTHER_NODE), false);
        const { pv } = await provisionedVolume(s, { selectedNode: s.nodeName });
        assert.equal(plugin.handles(pv), true);
      }),
  },
  {
    name: 'recovery after a restart keeps the volumes it finds, and may run twice',
    run: (make) =>
      withSubject(make, async (s) => {
        const plugin = claimed(s.plugin, isNodeScoped);
        const { req } = await provisionedVolume(s);
        await plugin.recover();
        await plugin.recover();
        assert.equal(await s.backingExists(req.backingName), true);
      }),
  },
];
