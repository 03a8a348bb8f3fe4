/** The objects the kubectl sweep creates: one of each kind the embedded server serves. */

export const STORAGE_CLASS = `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: sweep-manual
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: Immediate
`;

export const VOLUME = `apiVersion: v1
kind: PersistentVolume
metadata:
  name: sweep-pv
spec:
  capacity:
    storage: 2Gi
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  storageClassName: sweep-manual
  hostPath:
    path: /tmp/sweep-pv
`;

export const claim = (storage: string): string => `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: sweep-static
  namespace: sweep
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: sweep-manual
  resources:
    requests:
      storage: ${storage}
`;

export const DYNAMIC_CLAIM = `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: sweep-dynamic
  namespace: sweep
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
`;

export const NAMESPACE = `apiVersion: v1
kind: Namespace
metadata:
  name: sweep
`;

export const NODE = `apiVersion: v1
kind: Node
metadata:
  name: sweep-node
  labels:
    kubernetes.io/hostname: sweep-node
`;

export const POD = `apiVersion: v1
kind: Pod
metadata:
  name: sweep-pod
  namespace: sweep
spec:
  containers:
    - name: app
      image: registry.k8s.io/pause:3.10
      volumeMounts:
        - name: data
          mountPath: /data
  volumes:
    - name: data
      persistentVolumeClaim:
        claimName: sweep-dynamic
`;

export const SERVICE = `apiVersion: v1
kind: Service
metadata:
  name: sweep-svc
  namespace: sweep
spec:
  selector:
    app: sweep
  ports:
    - name: http
      port: 80
      targetPort: 8080
`;

/** An EDITOR for `kubectl edit`: adds a label to the object's metadata. */
export const EDITOR_SCRIPT = `import { readFileSync, writeFileSync } from 'node:fs';
const file = process.argv[2];
const text = readFileSync(file, 'utf8');
const edited = /^  labels:\\n/m.test(text)
  ? text.replace(/^  labels:\\n/m, '  labels:\\n    edited: "yes"\\n')
  : text.replace(/^metadata:\\n/m, 'metadata:\\n  labels:\\n    edited: "yes"\\n');
writeFileSync(file, edited);
`;
