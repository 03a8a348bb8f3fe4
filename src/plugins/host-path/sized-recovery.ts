/** What a restart of the machine or the process undid to sized host-path volumes, put back (the node-scoped capability's recover). */
import { posix } from 'node:path';
import type { Logger } from 'pino';
import { listRecords } from '../fs-common/metadata-record.js';
import { thaw } from './image-copy.js';
import { imageSupportProblem, type ImageVolumes } from './image-volume.js';

/**
 * Every sized volume of every root mounted again where a reboot unmounted it, each stray loop
 * device detached, and each filesystem thawed (a process killed while a snapshot copied its
 * image left it frozen); a volume whose image is missing is left to its delete (logged). One
 * volume's failure does not stop the others.
 */
export async function recoverSizedVolumes(roots: readonly string[], images: ImageVolumes, logger: Logger | undefined): Promise<void> {
  if (imageSupportProblem()) return;
  for (const root of roots) {
    for (const record of await listRecords(root).catch(() => [])) {
      if (record.sizing !== 'image') continue;
      const path = posix.join(root, record.subPath);
      try {
        if (!(await images.currentBytes(root, record.backingName))) {
          logger?.warn({ backingName: record.backingName }, 'sized volume has no image yet; its provisioning or delete finishes it');
          continue;
        }
        await images.ensureMounted(root, record.backingName, path);
        await thaw(images, path).catch((err: unknown) => logger?.error({ backingName: record.backingName, err: (err as Error).message }, 'cannot thaw sized volume'));
      } catch (err) {
        logger?.warn({ backingName: record.backingName, err: (err as Error).message }, 'cannot mount sized volume again');
      }
    }
  }
}
