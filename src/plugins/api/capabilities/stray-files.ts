/**
 * The stray-files capability: files a killed operation left on the backend that are no volume
 * (the file plugins' temporary record files), listed by `orphans` and removed at controller start
 * and by `orphans --delete`.
 */
import type { VolumePlugin } from '../core.js';
import { defineCapability } from './capability.js';

export interface StrayFile {
  path: string;
  modifiedAt: Date;
  /** False while it may still belong to an operation in progress: it is then never removed. */
  removable: boolean;
}

export interface StrayFileSweeper {
  /** Files a killed operation left behind; listing only. */
  listStrayFiles(): Promise<StrayFile[]>;
  /** Removes the stray files no operation in progress can own; returns those removed. Never a volume. */
  removeStrayFiles(): Promise<StrayFile[]>;
}

export const STRAY_FILES = defineCapability<StrayFileSweeper>()('stray-files', ['listStrayFiles', 'removeStrayFiles']);

export function canSweepStrayFiles(plugin: VolumePlugin): plugin is VolumePlugin & StrayFileSweeper {
  return STRAY_FILES.claimedBy(plugin);
}
