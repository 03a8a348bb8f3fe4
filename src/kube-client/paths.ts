/** REST paths of the resources the controller touches. */
const seg = encodeURIComponent;

export const paths = {
  volumes: (): string => '/api/v1/persistentvolumes',
  volume: (name: string): string => `/api/v1/persistentvolumes/${seg(name)}`,
  claimsAll: (): string => '/api/v1/persistentvolumeclaims',
  claims: (ns: string): string => `/api/v1/namespaces/${seg(ns)}/persistentvolumeclaims`,
  claim: (ns: string, name: string): string =>
    `/api/v1/namespaces/${seg(ns)}/persistentvolumeclaims/${seg(name)}`,
  storageClasses: (): string => '/apis/storage.k8s.io/v1/storageclasses',
  storageClass: (name: string): string => `/apis/storage.k8s.io/v1/storageclasses/${seg(name)}`,
  volumeAttributesClass: (name: string): string => `/apis/storage.k8s.io/v1/volumeattributesclasses/${seg(name)}`,
  podsAll: (): string => '/api/v1/pods',
  nodes: (): string => '/api/v1/nodes',
  node: (name: string): string => `/api/v1/nodes/${seg(name)}`,
  pods: (ns: string): string => `/api/v1/namespaces/${seg(ns)}/pods`,
  events: (ns: string): string => `/api/v1/namespaces/${seg(ns)}/events`,
  event: (ns: string, name: string): string => `/api/v1/namespaces/${seg(ns)}/events/${seg(name)}`,
  leases: (ns: string): string => `/apis/coordination.k8s.io/v1/namespaces/${seg(ns)}/leases`,
  lease: (ns: string, name: string): string =>
    `/apis/coordination.k8s.io/v1/namespaces/${seg(ns)}/leases/${seg(name)}`,
  namespaces: (): string => '/api/v1/namespaces',
  namespace: (name: string): string => `/api/v1/namespaces/${seg(name)}`,
};
