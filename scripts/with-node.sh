#!/usr/bin/env bash
# scripts/with-node.sh <major> <command> [args…]: run a command with Node.js <major> first on PATH, e.g.
#   scripts/with-node.sh 22 npx vitest run        (what .ci/run does for Node 22 and 24)
#   scripts/with-node.sh 24 node --version
# (`npx <tool>` of this project runs the tool's script with the chosen node, not the `node` devDependency's; an npm
# script, `npm test`, always runs on that devDependency: npm puts node_modules/.bin first on its PATH.)
# The Node binary is the official build as the npm registry ships it (package node-<os>-<arch>@<major>, the newest
# release of that line), installed once into a cache directory: $NOTEVOX_NODE_CACHE, else
# ${XDG_CACHE_HOME:-~/.cache}/notevox/node, one sub-directory per major version. Delete that sub-directory to
# fetch the line's newest release again. npm itself stays the one on PATH (it runs on the chosen Node).
set -euo pipefail

usage() {
  echo "usage: scripts/with-node.sh <major> <command> [args...]" >&2
  exit 2
}
[ $# -ge 2 ] || usage
major=$1
shift
[[ $major =~ ^[0-9]+$ ]] || usage

case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) echo "with-node.sh: no Node package for $(uname -s)" >&2; exit 1 ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "with-node.sh: no Node package for $(uname -m)" >&2; exit 1 ;;
esac
pkg=node-$os-$arch
cache=${NOTEVOX_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/notevox/node}
dir=$cache/$major
bin=$dir/node_modules/$pkg/bin

if [ ! -x "$bin/node" ]; then
  mkdir -p "$cache"
  tmp=$(mktemp -d "$cache/.install-$major.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  echo "with-node.sh: installing $pkg@$major into $dir" >&2
  # --prefix: a throw-away project of its own, so that no package.json or .npmrc around the caller applies.
  (cd "$tmp" && npm install --prefix "$tmp" --no-save --no-package-lock --no-audit --no-fund --ignore-scripts --loglevel=error "$pkg@$major" >&2)
  "$tmp/node_modules/$pkg/bin/node" -e 0 # it runs on this machine
  if [ -x "$bin/node" ]; then
    rm -rf "$tmp" # another run installed it meanwhile
  else
    rm -rf "$dir"
    mv "$tmp" "$dir"
  fi
  trap - EXIT
fi

export PATH="$bin:$PATH"
actual=$(node -p 'process.versions.node.split(".")[0]')
if [ "$actual" != "$major" ]; then
  echo "with-node.sh: asked for Node $major, but node on PATH is $(node --version)" >&2
  exit 1
fi
echo "with-node.sh: Node $(node --version) ($bin/node)" >&2
# `npx <tool>` would put node_modules/.bin first on PATH, where the project's own Node (the `node` devDependency)
# would then run the tool: a tool of the project's node_modules/.bin runs directly on the chosen Node instead.
if [ "$1" = npx ] && [ $# -ge 2 ] && [ -f "node_modules/.bin/$2" ] && [ "$2" != node ]; then
  tool=$(readlink -f "node_modules/.bin/$2")
  shift 2
  exec node "$tool" "$@"
fi
exec "$@"
