export {
  HOST_PATH_PARAMETER_ROOT,
  HOST_PATH_PROVISIONER,
  NODE_HOST_PATH_PROVISIONER,
  HostPathPlugin,
  volumePath,
  type HostPathPluginOptions,
} from './host-path-plugin.js';
