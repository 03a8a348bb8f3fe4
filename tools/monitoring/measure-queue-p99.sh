#!/bin/bash
# The work queues' p99 as a real Prometheus answers it, over a real `pv-controller up` with three
# claims (resynced every second, so the queues always have work): before the real histograms every
# answer was NaN (only a +Inf bucket). Needs Debian's `prometheus` and the kubectl that
# `npm run cluster:build` builds (or KUBECTL=...).
#   tools/monitoring/measure-queue-p99.sh [checkout with dist/, default: this one]
set -u
ROOT=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
KUBECTL=${KUBECTL:-$(ls ~/.cache/pv-controller/k8s/*/bin/kubectl 2>/dev/null | tail -1)}
W=$(mktemp -d /tmp/pv-measure-XXXX)
free_port() { node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }
MP=$(free_port); PP=$(free_port)
setsid node "$ROOT/dist/src/cli/main.js" up --data-dir "$W/data" --storage memory --metrics-bind-address "127.0.0.1:$MP" --pvclaimbinder-sync-period 1s > "$W/up.log" 2>&1 &
UP=$!
printf 'global: { scrape_interval: 1s }\nscrape_configs:\n  - job_name: pv-controller\n    static_configs: [{ targets: ["127.0.0.1:%s"] }]\n' "$MP" > "$W/prom.yml"
setsid prometheus --config.file="$W/prom.yml" --storage.tsdb.path="$W/tsdb" --web.listen-address="127.0.0.1:$PP" > "$W/prom.log" 2>&1 &
PR=$!
stop() { kill -TERM -"$PR" -"$UP" 2>/dev/null; wait "$PR" "$UP" 2>/dev/null; rm -rf "$W"; }
trap stop EXIT
for _ in $(seq 1 60); do grep -q "is up" "$W/up.log" 2>/dev/null && break; sleep 1; done
for n in a b c; do
  printf 'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: %s, namespace: default}\nspec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Mi}}}\n' "$n" |
    "$KUBECTL" --kubeconfig "$W/data/kubeconfig" apply -f - > /dev/null
done
sleep 35
for q in 'histogram_quantile(0.99, sum by (le, name) (rate(workqueue_work_duration_seconds_bucket[30s])))' \
         'histogram_quantile(0.99, sum by (le, name) (rate(workqueue_queue_duration_seconds_bucket[30s])))' \
         'count by (__name__) ({__name__=~"workqueue_work_duration_seconds_bucket|rest_client_requests_total|process_cpu_seconds_total|controller_persistentvolumeclaim_provision_total"})'; do
  echo "== $q"
  curl -s --get --data-urlencode "query=$q" "http://127.0.0.1:$PP/api/v1/query" |
    python3 -c 'import json,sys; [print(" ", r["metric"], r["value"][1]) for r in json.load(sys.stdin)["data"]["result"]]'
done
