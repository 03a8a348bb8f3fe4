export {
  conservativeOnDelete,
  NFS_SUBDIR_PROVISIONER,
  NfsSubdirPlugin,
  type NfsMount,
  type NfsSubdirPluginOptions,
} from './nfs-subdir-plugin.js';
export { patternProblems, renderPattern } from '../fs-common/path-pattern.js';
