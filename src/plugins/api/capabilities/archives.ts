/**
 * The archives capability: a plugin that archives volumes on delete (`onDelete: archive`) lists
 * its archives and deletes those whose retention has run out (fs-common/archive.ts). The
 * controller's sweeper calls `sweepArchives` on the leader every sync period.
 */
import type { VolumePlugin } from '../core.js';
import { defineCapability } from './capability.js';

export interface ArchiveInfo {
  path: string;
  backingName: string;
  expiresAt?: Date;
  archivedAt?: Date;
}

export interface ArchiveKeeper {
  listArchives(): Promise<ArchiveInfo[]>;
  /** Deletes the archives whose retention ended before `now`; returns them. Never touches anything else. */
  sweepArchives(now: Date, signal?: AbortSignal): Promise<ArchiveInfo[]>;
}

export const ARCHIVES = defineCapability<ArchiveKeeper>()('archives', ['listArchives', 'sweepArchives']);

export function canKeepArchives(plugin: VolumePlugin): plugin is VolumePlugin & ArchiveKeeper {
  return ARCHIVES.claimedBy(plugin);
}
