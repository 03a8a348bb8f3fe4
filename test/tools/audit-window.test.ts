import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { countAuditWindow } from '../../tools/cluster/audit.js';

interface Line {
  agent: string;
  verb: string;
  code: number;
  at: string;
  stage?: string;
}

function auditLine(l: Line): string {
  return JSON.stringify({
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    stage: l.stage ?? 'ResponseComplete',
    verb: l.verb,
    user: { username: 'admin' },
    userAgent: l.agent,
    objectRef: { resource: 'persistentvolumes' },
    responseStatus: { code: l.code },
    requestReceivedTimestamp: l.at,
  });
}

describe('audit log window counts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-window-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('counts one User-Agent\'s requests received in the window: all of them, its successful writes and its 409s', async () => {
    const kcm = 'kube-controller-manager/v1.37.2 (linux/amd64) kubernetes/x/persistent-volume-binder';
    const lines: Line[] = [
      { agent: kcm, verb: 'update', code: 200, at: '2026-12-01T10:00:01.000100Z' },
      { agent: kcm, verb: 'update', code: 409, at: '2026-12-01T10:00:02.5Z' },
      { agent: kcm, verb: 'get', code: 200, at: '2026-12-01T10:00:03Z' },
      { agent: kcm, verb: 'create', code: 201, at: '2026-12-01T10:00:04Z' },
      // The same request's earlier stage is not a second request.
      { agent: kcm, verb: 'watch', code: 200, at: '2026-12-01T10:00:04Z', stage: 'ResponseStarted' },
      // Another client with the same identity, and the same client outside the window.
      { agent: 'pv-controller', verb: 'update', code: 200, at: '2026-12-01T10:00:02Z' },
      { agent: kcm, verb: 'update', code: 200, at: '2026-12-01T09:59:59.999Z' },
      { agent: kcm, verb: 'update', code: 200, at: '2026-12-01T10:00:05.001Z' },
    ];
    const file = join(dir, 'audit.log');
    writeFileSync(file, `${lines.map(auditLine).join('\n')}\n`);
    const window = { fromMs: Date.parse('2026-12-01T10:00:00Z'), toMs: Date.parse('2026-12-01T10:00:05Z') };
    assert.deepEqual(await countAuditWindow(file, { userAgentPrefix: 'kube-controller-manager/', ...window }), {
      requests: 4,
      writes: 2,
      conflicts: 1,
      byComponent: { 'persistent-volume-binder': 4 },
    });
    assert.deepEqual(await countAuditWindow(file, { userAgentPrefix: 'pv-controller', ...window }), {
      requests: 1,
      writes: 1,
      conflicts: 0,
      byComponent: { 'pv-controller': 1 },
    });
  });
});
