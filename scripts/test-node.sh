#!/usr/bin/env bash
# `scripts/test-node.sh [VERSION]` (default 24.22.3): the whole suite, `npm ci && npm test`, under
# another Node.js. That Node.js is the npm registry's node-linux-<arch> package (the official
# build's bin/node and headers), fetched with `npm pack` into a cache outside the repository; the
# tracked files are copied to a temporary directory so that npm ci there compiles better-sqlite3
# for that Node.js against its own headers and leaves this checkout's node_modules alone.
set -euo pipefail
version="${1:-24.22.3}"
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
git -C "$repo" ls-files -z | tar -C "$repo" --null -T - -cf - | tar -C "$work" -xf -
cd "$work"
export PATH="$cache/bin:$PATH" npm_config_nodedir="$cache"
echo "test-node: node $(node --version) from $cache, npm $(npm --version), in $work"
npm ci
npm test
