/**
 * One node's agent, run by multinode.test.ts inside a private mount namespace (never on its own):
 * `unshare -m --propagation private node agent-sandbox.js ROOT_SIZE NODE_AGENT_ARGS…`. It enters
 * the sandbox (a fresh tmpfs, every other mount read-only for it), gives the node its own root —
 * a tmpfs of ROOT_SIZE at <sandbox>/root, the same path on every "node" as on a real cluster —
 * and runs `pv-controller node-agent --host-path-root <sandbox>/root …` in this very process, so
 * its loop devices and mounts are this namespace's alone and vanish with it.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { enterSandbox, mountTmpfs } from '../../helpers/mount-sandbox.js';

const MAIN = fileURLToPath(new URL('../../../src/cli/main.js', import.meta.url));

const [rootSize, ...agentArgs] = process.argv.slice(2);
if (!rootSize) throw new Error('usage: agent-sandbox.js ROOT_SIZE NODE_AGENT_ARGS…');
const root = join(enterSandbox(), 'root');
mkdirSync(root);
mountTmpfs(root, rootSize);
// main.js parses process.argv when it loads.
process.argv = [process.argv[0], MAIN, 'node-agent', '--host-path-root', root, ...agentArgs];
await import(MAIN);
