/**
 * `node dist/tools/csi/proxy.js --listen A --driver B [--delay CreateVolume=5s] ...`: the CSI
 * delay and fault proxy (csi-proxy.ts) for humans. Faults are flags, each repeatable:
 *   --delay M=5s          wait before forwarding M
 *   --delay-answer M=5s   forward M, wait before answering (the driver did it, the caller waits)
 *   --fail M=UNAVAILABLE  answer M with that gRPC code, never forward it
 *   --hang M              hold M until released;  --hang-answer M  hold M's answer until released
 * `M*3=...` lifts the rule after 3 calls. While it runs, stdin takes the same as commands, one a
 * line (`delay CreateVolume=2s`, `clear [M]`, `release [M]`, `rules`), so rules change live.
 */
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { pino, type Logger } from 'pino';
import { CsiProxy } from './csi-proxy.js';
import { FAULT_OPTIONS, parseRule, type CsiRule } from './faults.js';
import { csiMethod } from './methods.js';

export { CsiProxy, type CsiProxyOptions } from './csi-proxy.js';
export { parseRule, type CsiFault, type CsiRule } from './faults.js';

const USAGE = `usage: proxy --listen SOCKET --driver SOCKET [--delay M=DUR] [--delay-answer M=DUR] [--fail M=CODE] [--hang M] [--hang-answer M]`;

export interface ProxyCommandLine {
  listen: string;
  driver: string;
  rules: CsiRule[];
}

/** Parses the proxy's flags; throws with a message on a bad one. */
export function parseProxyArgs(argv: string[]): ProxyCommandLine {
  const many = { type: 'string', multiple: true } as const;
  const { values } = parseArgs({
    args: argv,
    options: { listen: { type: 'string' }, driver: { type: 'string' }, delay: many, 'delay-answer': many, fail: many, hang: many, 'hang-answer': many },
    strict: true,
  });
  if (!values.listen || !values.driver) throw new Error(`--listen and --driver are required\n${USAGE}`);
  const rules: CsiRule[] = [];
  for (const option of FAULT_OPTIONS) {
    for (const spec of values[option] ?? []) rules.push(parseRule(option, spec));
  }
  return { listen: values.listen, driver: values.driver, rules };
}

/** Applies one stdin command to a running proxy; returns what to print. */
export function applyCommand(proxy: CsiProxy, line: string): string {
  const [verb, arg] = line.trim().split(/\s+/, 2);
  switch (verb) {
    case '':
      return '';
    case 'clear':
      proxy.clearRule(arg === undefined ? undefined : csiMethod(arg));
      return 'cleared';
    case 'release':
      return `released ${proxy.release(arg === undefined ? undefined : csiMethod(arg))}`;
    case 'rules':
      return JSON.stringify(proxy.activeRules());
    default: {
      if (arg === undefined) throw new Error(`"${line}": give a method (e.g. ${verb} CreateVolume=5s)`);
      const rule = parseRule(verb, arg);
      proxy.setRule(rule);
      return `set ${JSON.stringify(rule)}`;
    }
  }
}

async function main(argv: string[], log: Logger): Promise<number> {
  let cmd: ProxyCommandLine;
  try {
    cmd = parseProxyArgs(argv);
  } catch (err) {
    process.stderr.write(`proxy: ${err instanceof Error ? err.message : String(err)}\n`);
    return 2;
  }
  const proxy = await CsiProxy.start({ listen: cmd.listen, driver: cmd.driver });
  for (const rule of cmd.rules) proxy.setRule(rule);
  log.info({ listen: cmd.listen, driver: cmd.driver, rules: cmd.rules }, 'CSI proxy listening');
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    try {
      const said = applyCommand(proxy, line);
      if (said) log.info({ command: line.trim() }, said);
    } catch (err) {
      log.warn({ command: line.trim(), err: err instanceof Error ? err.message : String(err) }, 'command refused');
    }
  });
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  lines.close();
  await proxy.stop();
  log.info({ calls: Object.fromEntries(proxy.calls) }, 'CSI proxy stopped');
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2), pino({ name: 'csi-proxy' })).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`proxy: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
