#!/usr/bin/env bash
# `scripts/test-node.sh [VERSION] [--smoke]` (default 26.12.1): the whole suite, `npm ci && npm
# test`, under another Node.js; with --smoke `npm ci`, the build and the smoke subset below only.
# That Node.js is the npm registry's node-linux-<arch> package (the official build's bin/node and
# headers), fetched with `npm pack` into a cache outside the repository; the tracked files are
# copied to a temporary directory so that npm ci there compiles better-sqlite3 for that Node.js
# against its own headers and leaves this checkout's node_modules alone.
#
# The smoke subset is what differs between Node.js lines: the native SQLite module loading and
# storing (apiserver/storage/sqlite), `npm start` answering kubectl (e2e/npm-start), the
# controller binding, provisioning and reclaiming through client-node (integration/binding,
# provisioning, reclaim), client-node against the server (apiserver/client-node), the CSI client
# over gRPC (csi/fake-driver) and the CLI's flag parsing (cli/flags). Measured with all of csi/
# and cli/ under 22.23.5: 172 tests passed in 476 s at a load average of 27; those two folders
# spawn a CLI per case and were most of it, so one file of each stays.
set -euo pipefail
version="${1:-26.12.1}"
mode="${2:-full}"
smoke=(apiserver/storage/sqlite e2e/npm-start integration/binding.test integration/provisioning.test integration/reclaim.test apiserver/client-node csi/fake-driver cli/flags.test)
repo="$(cd "$(dirname "$0")/.." && pwd)"
cache="${PV_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pv-controller/node}/$version"
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64) arch=arm64 ;;
  *) echo "test-node: no node-linux package for $(uname -m)" >&2; exit 1 ;;
esac
if [ ! -x "$cache/bin/node" ]; then
  fetch="$(mktemp -d)"
  (cd "$fetch" && npm pack "node-linux-$arch@$version" --silent >/dev/null)
  mkdir -p "$cache"
  tar -xzf "$fetch"/node-linux-*.tgz --strip-components=1 -C "$cache"
  rm -rf "$fetch"
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# A local clone first, so the copy is a git checkout with this one's history and tags (the
# release and image-label tests read HEAD and clone it), then the tracked files as they are now
# over it, so uncommitted edits are tested too.
git clone --quiet "$repo" "$work"
git -C "$repo" ls-files -z | tar -C "$repo" --null -T - -cf - | tar -C "$work" -xf -
cd "$work"
export PATH="$cache/bin:$PATH" npm_config_nodedir="$cache"
echo "test-node: node $(node --version) from $cache, npm $(npm --version), in $work ($mode)"
npm ci
case "$mode" in
  full) npm test ;;
  --smoke) npm run build && node scripts/run-tests.mjs "${smoke[@]}" ;;
  *) echo "test-node: unknown mode $mode (--smoke or nothing)" >&2; exit 2 ;;
esac
