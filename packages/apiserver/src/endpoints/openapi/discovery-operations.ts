/** The discovery endpoints' operations (/api/, /api/v1/, /apis/, /apis/{g}/, /apis/{g}/{v}/, /version/). */
import { META, OBJECT_MEDIA, groupId, groupVersionTag, upper, type Operation, type PathOperations } from './operations.js';

interface GroupVersion {
  group: string;
  version: string;
}

function discovery(path: string, tag: string, operationId: string, description: string, schema: string, media = OBJECT_MEDIA): PathOperations {
  const operation: Operation = {
    method: 'get', operationId, description, tag, parameters: [], consumes: media, produces: media,
    responses: [{ code: 200, schema }, { code: 401 }],
  };
  return { path, operations: [operation] };
}

export function discoveryOperations(served: GroupVersion[]): PathOperations[] {
  const out: PathOperations[] = [
    discovery('/api/', 'core', 'getCoreAPIVersions', 'get available API versions', `${META}.APIVersions`),
    discovery('/apis/', 'apis', 'getAPIVersions', 'get available API versions', `${META}.APIGroupList`),
    discovery('/version/', 'version', 'getCodeVersion', 'get the version information for this server', 'io.k8s.apimachinery.pkg.version.Info', ['application/json']),
  ];
  const groups = new Set<string>();
  for (const { group, version } of served) {
    const tag = groupVersionTag(group, version);
    const id = groupId(group);
    const root = group ? `/apis/${group}/${version}/` : `/api/${version}/`;
    out.push(discovery(root, tag, `get${id}${upper(version)}APIResources`, 'get available resources', `${META}.APIResourceList`));
    if (group && !groups.has(group)) {
      groups.add(group);
      out.push(discovery(`/apis/${group}/`, tag.slice(0, tag.lastIndexOf('_')), `get${id}APIGroup`, 'get information of a group', `${META}.APIGroup`));
    }
  }
  return out;
}
