import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

function run(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [MAIN, ...args], { encoding: 'utf8', timeout: 30_000 });
}

/** `--flag` → { text, default } from a command's --help (wrapped descriptions joined again). */
function helpFlags(command: string): Map<string, { text: string; default?: string }> {
  const entries: string[] = [];
  for (const line of run(command, '--help').stdout.split('\n')) {
    if (/^ {2}-/.test(line)) entries.push(line.trim());
    else if (/^ {3,}\S/.test(line) && entries.length > 0) entries[entries.length - 1] += ` ${line.trim()}`;
  }
  const flags = new Map<string, { text: string; default?: string }>();
  for (const entry of entries) {
    const m = /^(?:-\w, )?(--[\w-]+)(?: [<[][^\]>]*[\]>])? {2,}(.*)$/.exec(entry);
    if (!m || m[1] === '--help') continue;
    // commander ends a description with " (default: X)", or ", default: X)" after its choices.
    const d = /(?: \(|, )default: ("[^"]*"|true|false)\)$/.exec(m[2]);
    const text = d ? m[2].slice(0, d.index) + (d[0].startsWith(',') ? ')' : '') : m[2];
    flags.set(m[1], { text, ...(d ? { default: d[1] } : {}) });
  }
  return flags;
}

/** Where a command differs from the flag's one definition, on purpose (see up.ts and orphans.ts). */
const OWN_DEFAULTS: Record<string, string[]> = {
  up: ['--listen', '--leader-elect', '--kube-api-qps', '--kube-api-burst', '--log-format'],
  orphans: ['--log-format'],
};
// The client commands' --data-dir names an `up` data dir to read, the servers' the one to write.
const OWN_TEXT: Record<string, string[]> = { orphans: ['--data-dir'], usage: ['--data-dir'] };

test('up takes every flag controller takes (but --kubeconfig: it makes its own), plugin flags included', () => {
  const up = helpFlags('up');
  const controller = helpFlags('controller');
  assert.ok(controller.size > 20, `parsed ${controller.size} flags`);
  for (const flag of controller.keys()) if (flag !== '--kubeconfig') assert.ok(up.has(flag), `up lacks ${flag}`);
  for (const flag of ['--host-path-root', '--nfs-mount', '--cloud-provider', '--node-name']) assert.ok(up.has(flag), flag);
});

test('a flag several commands take has one help text and one default (but the differences up and orphans name)', () => {
  const commands = ['controller', 'up', 'orphans', 'usage', 'apiserver'];
  const help = new Map(commands.map((c) => [c, helpFlags(c)]));
  for (const [command, flags] of help) {
    for (const [flag, def] of flags) {
      for (const [other, otherFlags] of help) {
        const theirs = otherFlags.get(flag);
        if (other === command || !theirs) continue;
        const own = (table: Record<string, string[]>): boolean => [command, other].some((c) => table[c]?.includes(flag));
        if (!own(OWN_TEXT)) assert.equal(def.text, theirs.text, `${flag}: ${command} and ${other} say different things`);
        if (!own(OWN_DEFAULTS)) assert.equal(def.default, theirs.default, `${flag}: ${command} and ${other} default differently`);
      }
    }
  }
  assert.equal(help.get('up')?.get('--concurrent-syncs')?.default, '"4"');
});

test('up checks the plugin flags as controller does, before starting anything', () => {
  const nfs = run('up', '--data-dir', '/nonexistent/pv-controller-up', '--nfs-mount', 'nfs.example:share');
  assert.equal(nfs.status, 2, nfs.stderr);
  assert.match(nfs.stderr, /--nfs-mount must be server:\/share=\/mount\/path/);
  const root = run('up', '--data-dir', '/nonexistent/pv-controller-up', '--host-path-root', 'relative');
  assert.equal(root.status, 2, root.stderr);
  assert.match(root.stderr, /--host-path-root must be an absolute path/);
});

test('-v means the same levels in every command that logs', () => {
  const texts = ['controller', 'up', 'orphans', 'apiserver'].map((c) => helpFlags(c).get('--v')?.text);
  assert.deepEqual(new Set(texts), new Set(['log verbosity: 0 info, 2 debug, 4 trace']));
  const bad = run('orphans', '-v', 'loud');
  assert.equal(bad.status, 2, bad.stderr);
  assert.match(bad.stderr, /-v must be an integer/);
});

test('--version prints the package version and exits 0', async () => {
  const { readFile } = await import('node:fs/promises');
  const pkg = JSON.parse(await readFile(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  const r = run('--version');
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), pkg.version);
});

test('an unknown command exits 2 naming it, even with --help', () => {
  for (const args of [['no-such-command'], ['no-such-command', '--help'], ['orphan', '--delete']]) {
    const r = run(...args);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stdout}`);
    assert.match(r.stderr, new RegExp(`unknown command '${args[0]}'`));
  }
  assert.equal(run('--help').status, 0);
  assert.equal(run('help', 'up').status, 0);
});

test('a bad flag prints the error and where the help is, not the whole help, for every command', () => {
  for (const command of ['up', 'controller', 'node-agent', 'usage', 'orphans', 'apiserver']) {
    // up's and apiserver's --data-dir is required: given, so the unknown flag is the one error.
    const r = run(command, ...(command === 'up' || command === 'apiserver' ? ['--data-dir', '/nonexistent/pv-controller-test'] : []), '--no-such-flag');
    assert.equal(r.status, 2, `${command}: ${r.stderr}`);
    assert.deepEqual(r.stderr.trim().split('\n'), ["error: unknown option '--no-such-flag'", `(see 'pv-controller ${command} --help')`], command);
    assert.equal(r.stdout, '');
  }
  const bad = run('controller', '--kube-api-qps', 'abc');
  assert.equal(bad.status, 2);
  assert.deepEqual(bad.stderr.trim().split('\n'), ['error: --kube-api-qps must be a non-negative number, got "abc"', "(see 'pv-controller controller --help')"]);
});

test('--help loads no command\'s runtime: the controller, client-node and the cloud SDKs load only when a command runs', async () => {
  // The loader hook records every module URL that --help imports.
  const { mkdtemp, readFile, rm, writeFile } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = await mkdtemp(join(tmpdir(), 'cli-help-'));
  try {
    const log = join(dir, 'loaded.txt');
    const hook = join(dir, 'hook.mjs');
    await writeFile(hook, `import { appendFileSync } from 'node:fs';\nexport async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(${JSON.stringify(log)}, r.url + '\\n'); return r; }\n`);
    const register = join(dir, 'register.mjs');
    await writeFile(register, `import { register } from 'node:module';\nregister(${JSON.stringify(`file://${hook}`)});\n`);
    for (const args of [['--help'], ['up', '--help'], ['controller', '--help'], ['node-agent', '--help'], ['orphans', '--help'], ['usage', '--help']]) {
      await writeFile(log, '');
      const r = spawnSync(process.execPath, ['--import', register, MAIN, ...args], { encoding: 'utf8', timeout: 30_000 });
      assert.equal(r.status, 0, r.stderr);
      const loaded = (await readFile(log, 'utf8')).split('\n');
      for (const heavy of ['@kubernetes/client-node', '@aws-sdk', 'src/controller/controller.js', 'src/controller/index.js', '@grpc/grpc-js']) {
        const hit = loaded.find((url) => url.includes(heavy));
        assert.equal(hit, undefined, `${args.join(' ')} loaded ${hit}`);
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
