#!/usr/bin/env node
/**
 * pv-controller's command line. Each command lives in its own file under src/cli/ and exports
 * `register(program)`; this file only lists them. Flag parsing and wiring only, no logic.
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';

type Registrar = (program: Command) => void;

/**
 * One entry per command, in the order `--help` lists them. Only the invoked command's module is
 * loaded (the cloud SDKs and client-node take seconds to import); help loads them all.
 */
const commandModules: Record<string, () => Promise<{ register: Registrar }>> = {
  up: () => import('./up.js'),
  apiserver: () => import('./apiserver.js'),
  controller: () => import('./controller.js'),
  'node-agent': () => import('./node-agent.js'),
  usage: () => import('./usage.js'),
  orphans: () => import('./orphans.js'),
};

function modulesFor(argv: string[]): Array<() => Promise<{ register: Registrar }>> {
  const named = commandModules[argv[2] ?? ''];
  return named ? [named] : Object.values(commandModules);
}

/** This package's version, as `--version` prints it. */
function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/**
 * The first argument when it names no command and is no option: commander would print the
 * top-level help for `no-such-command --help` and exit 0, which hides a typo from a script.
 */
function unknownCommand(argv: string[]): string | undefined {
  const first = argv[2];
  if (first === undefined || first.startsWith('-') || first === 'help' || first in commandModules) return undefined;
  return first;
}

export async function main(argv: string[]): Promise<void> {
  const program = new Command('pv-controller')
    .description('Kubernetes persistent-volume lifecycle: bind, provision, reclaim, report usage')
    .version(packageVersion(), '--version', 'print the version and exit')
    .showHelpAfterError("(see 'pv-controller --help')")
    .showSuggestionAfterError()
    .exitOverride();
  for (const load of modulesFor(argv)) (await load()).register(program);
  // A usage error is the error and where the help is, not forty lines of help that bury it.
  for (const command of program.commands) command.showHelpAfterError(`(see 'pv-controller ${command.name()} --help')`);
  const unknown = unknownCommand(argv);
  if (unknown !== undefined) {
    process.stderr.write(`error: unknown command '${unknown}' (commands: ${Object.keys(commandModules).join(', ')}; see pv-controller --help)\n`);
    process.exit(2);
  }
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version exit 0; every usage error exits 2, like kube-controller-manager.
      process.exit(err.exitCode === 0 ? 0 : 2);
    }
    throw err;
  }
}

main(process.argv).catch((err: unknown) => {
  process.stderr.write(`pv-controller: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
