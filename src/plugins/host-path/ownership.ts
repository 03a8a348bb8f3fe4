/**
 * Owner, group and mode of a new host-path volume's directory (for a sized volume, its
 * filesystem's root), from class parameters: `directoryUid`, `directoryGid` (numeric ids: a name
 * would resolve differently on each node) and `directoryMode` (octal, permission bits plus at most
 * setgid and sticky; no setuid). Without them a directory is 0777 and owned by the provisioner, as
 * before. Applied through a descriptor opened without following a symlink, so a link planted at
 * the volume's path is refused, never chowned through.
 */
import { promises as fs } from 'node:fs';
import type { ParameterProblem } from '../api/errors.js';
import { PluginError } from '../api/errors.js';
import { openDirNoFollow } from '../fs-common/safe-path.js';

export const DIRECTORY_UID_PARAMETER = 'directoryUid';
export const DIRECTORY_GID_PARAMETER = 'directoryGid';
export const DIRECTORY_MODE_PARAMETER = 'directoryMode';
export const OWNERSHIP_PARAMETERS: readonly string[] = [DIRECTORY_UID_PARAMETER, DIRECTORY_GID_PARAMETER, DIRECTORY_MODE_PARAMETER];
/** The plain default: kubelet applies no fsGroup to hostPath/local volumes, so stricter modes lock out non-root pods. */
export const DEFAULT_DIRECTORY_MODE = 0o777;
/** uid/gid 4294967295 is (uid_t)-1, "leave unchanged" to chown(2): never a real owner. */
const MAX_ID = 4294967294;
const MAX_MODE = 0o3777;

export interface DirectoryOwnership {
  uid?: number;
  gid?: number;
  mode: number;
}

function idProblem(value: string): string | undefined {
  if (!/^[0-9]{1,10}$/.test(value) || Number(value) > MAX_ID) return `must be a numeric id 0–${MAX_ID}, got "${value}"`;
  return undefined;
}

function modeProblem(value: string): string | undefined {
  if (!/^0?[0-7]{3,4}$/.test(value) || parseInt(value, 8) > MAX_MODE) return `must be an octal mode 000–3777 (no setuid), e.g. "0770", got "${value}"`;
  return undefined;
}

/** The problem of one ownership parameter; undefined for a good value or another parameter. */
export function ownershipProblem(key: string, value: string): string | undefined {
  if (key === DIRECTORY_UID_PARAMETER || key === DIRECTORY_GID_PARAMETER) return idProblem(value);
  if (key === DIRECTORY_MODE_PARAMETER) return modeProblem(value);
  return undefined;
}

export function ownershipProblems(parameters: Record<string, string>): ParameterProblem[] {
  return OWNERSHIP_PARAMETERS.flatMap((key) => {
    const value = parameters[key];
    const message = value === undefined ? undefined : ownershipProblem(key, value);
    return message === undefined ? [] : [{ parameter: key, message }];
  });
}

/** What a class asks for (parameters validated before). */
export function ownershipOf(parameters: Record<string, string>): DirectoryOwnership {
  const uid = parameters[DIRECTORY_UID_PARAMETER];
  const gid = parameters[DIRECTORY_GID_PARAMETER];
  const mode = parameters[DIRECTORY_MODE_PARAMETER];
  return {
    ...(uid !== undefined ? { uid: Number(uid) } : {}),
    ...(gid !== undefined ? { gid: Number(gid) } : {}),
    mode: mode !== undefined ? parseInt(mode, 8) : DEFAULT_DIRECTORY_MODE,
  };
}

/** Whether the class sets anything beyond the default. */
export function hasOwnership(o: DirectoryOwnership): boolean {
  return o.uid !== undefined || o.gid !== undefined || o.mode !== DEFAULT_DIRECTORY_MODE;
}

/** Gives the volume directory `path` (inside `root`) its owner, group and mode; repeatable. */
export async function applyOwnership(root: string, path: string, o: DirectoryOwnership): Promise<void> {
  if (!hasOwnership(o)) return;
  const dir = await openDirNoFollow(root, path);
  if (!dir) throw new PluginError('Transient', `"${path}" vanished before its owner and mode were set`, true);
  try {
    // chown first: it clears setgid, which the mode then sets again when asked for.
    if (o.uid !== undefined || o.gid !== undefined) await fs.chown(dir.self(), o.uid ?? -1, o.gid ?? -1);
    await fs.chmod(dir.self(), o.mode);
  } finally {
    await dir.close();
  }
}
