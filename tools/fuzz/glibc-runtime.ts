/**
 * Where Jazzer.js's native addon can load. Its prebuilt linux-x64 addon needs glibc 2.38 and
 * libstdc++ GLIBCXX_3.4.32; Debian bookworm has 2.36 and 3.4.30. On such a machine Debian
 * trixie's libc6, libstdc++6 and libgcc-s1 (3.6 MB) are fetched once with apt-get into a cache
 * directory (no system package is touched: apt runs on its own lists and sources) and this
 * machine's node is started through trixie's dynamic loader with those libraries first. Where
 * the system glibc is new enough node is started as it is.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const NEEDED_GLIBC = [2, 38];
const TRIXIE_PACKAGES = ['libc6', 'libstdc++6', 'libgcc-s1'];
const TRIXIE_KEYRING = '/usr/share/keyrings/debian-archive-trixie-stable.gpg';

/** How to start node so that the fuzzer's addon loads: the command and the arguments before the script. */
export interface NodeLauncher {
  command: string;
  prefixArgs: string[];
  description: string;
}

/** `$PV_FUZZ_RUNTIME`, else `$XDG_CACHE_HOME/pv-controller/fuzz-runtime`, else `~/.cache/pv-controller/fuzz-runtime`. */
export function runtimeDir(): string {
  if (process.env.PV_FUZZ_RUNTIME) return process.env.PV_FUZZ_RUNTIME;
  return join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'pv-controller', 'fuzz-runtime');
}

function systemGlibc(): number[] | undefined {
  const version = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header?.glibcVersionRuntime;
  return version?.split('.').map(Number);
}

function glibcIsNewEnough(version: number[] | undefined): boolean {
  if (!version) return false;
  return version[0] > NEEDED_GLIBC[0] || (version[0] === NEEDED_GLIBC[0] && version[1] >= NEEDED_GLIBC[1]);
}

function aptOptions(dir: string): string[] {
  return [
    '-q', '-o', `Dir::Etc::SourceList=${join(dir, 'apt', 'sources.list')}`, '-o', 'Dir::Etc::SourceParts=/dev/null',
    '-o', `Dir::State::Lists=${join(dir, 'apt', 'lists')}`, '-o', `Dir::Cache=${join(dir, 'apt', 'cache')}`,
    '-o', 'Dir::State::status=/dev/null', '-o', 'Acquire::IndexTargets::deb::Contents-deb::DefaultEnabled=false',
    '-o', 'APT::Sandbox::User=root',
  ];
}

/** Downloads and unpacks trixie's C and C++ runtime into `dir`/root (once). */
function fetchTrixieRuntime(dir: string): void {
  if (!existsSync(TRIXIE_KEYRING)) throw new Error(`fuzz: ${TRIXIE_KEYRING} is missing (apt-get install debian-archive-keyring)`);
  for (const sub of ['apt/lists/partial', 'apt/cache/archives/partial', 'debs', 'root']) mkdirSync(join(dir, sub), { recursive: true });
  writeFileSync(join(dir, 'apt', 'sources.list'), `deb [signed-by=${TRIXIE_KEYRING}] http://deb.debian.org/debian trixie main\n`);
  const options = aptOptions(dir);
  execFileSync('apt-get', [...options, 'update'], { stdio: ['ignore', 'ignore', 'inherit'] });
  execFileSync('apt-get', [...options, 'download', ...TRIXIE_PACKAGES], { cwd: join(dir, 'debs'), stdio: ['ignore', 'ignore', 'inherit'] });
  for (const deb of readdirSync(join(dir, 'debs')).filter((f) => f.endsWith('.deb'))) {
    execFileSync('dpkg-deb', ['-x', join(dir, 'debs', deb), join(dir, 'root')]);
  }
}

/** The way to start node for the fuzzer on this machine, fetching trixie's runtime if it must. */
export function fuzzNodeLauncher(): NodeLauncher {
  const glibc = systemGlibc();
  if (glibcIsNewEnough(glibc)) return { command: process.execPath, prefixArgs: [], description: `node with the system glibc ${glibc?.join('.')}` };
  if (process.platform !== 'linux' || process.arch !== 'x64') throw new Error(`fuzz: no runtime for ${process.platform}-${process.arch} with glibc ${glibc?.join('.')}`);
  const dir = runtimeDir();
  const libs = join(dir, 'root', 'usr', 'lib', 'x86_64-linux-gnu');
  const loader = join(libs, 'ld-linux-x86-64.so.2');
  if (!existsSync(loader)) fetchTrixieRuntime(dir);
  return {
    command: loader,
    prefixArgs: ['--library-path', libs, process.execPath],
    description: `node through Debian trixie's glibc in ${dir} (the system has ${glibc?.join('.') ?? 'no glibc'})`,
  };
}
