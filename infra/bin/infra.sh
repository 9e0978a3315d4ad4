#!/usr/bin/env bash
# Starts and stops the local infrastructure: Apache Kafka (KRaft), the SMTP sink, the trace backend.
#   infra.sh up [component...]     start what is not running yet (default: kafka maildev zipkin)
#   infra.sh down [component...]   stop them
#   infra.sh status
# With INFRA_STARTED_FILE set, `up` appends the components it actually started to that file,
# so a caller can stop exactly what it started and leave a developer's running stack alone.
set -euo pipefail
BIN="$(cd "$(dirname "$0")" && pwd)"
ALL=(kafka maildev zipkin)

cmd="${1:-status}"
shift || true
components=("$@")
[ ${#components[@]} -eq 0 ] && components=("${ALL[@]}")

case "$cmd" in
  up)
    pids=()
    names=()
    for c in "${components[@]}"; do
      # status: 0 running and answering, 3 not running, else running but not answering (busy).
      rc=0
      bash "$BIN/$c.sh" status >/dev/null 2>&1 || rc=$?
      if [ "$rc" -eq 0 ]; then
        echo "[infra] $c already running"
        continue
      fi
      if [ "$rc" -ne 3 ]; then
        # Someone else's (start would only say "already running"): not ours to stop later.
        echo "[infra] $c is running but not answering yet; left as it is"
        continue
      fi
      bash "$BIN/$c.sh" start &
      pids+=("$!")
      names+=("$c")
    done
    failed=0
    for i in "${!pids[@]}"; do
      if wait "${pids[$i]}"; then
        [ -n "${INFRA_STARTED_FILE:-}" ] && echo "${names[$i]}" >>"$INFRA_STARTED_FILE"
      else
        echo "[infra] ${names[$i]} failed to start" >&2
        failed=1
      fi
    done
    exit "$failed"
    ;;
  down)
    for c in "${components[@]}"; do bash "$BIN/$c.sh" stop || true; done
    ;;
  status)
    rc=0
    for c in "${components[@]}"; do
      if bash "$BIN/$c.sh" status >/dev/null 2>&1; then echo "$c: running"; else echo "$c: stopped"; rc=1; fi
    done
    exit "$rc"
    ;;
  *)
    echo "usage: infra.sh up|down|status [kafka|maildev|zipkin ...]" >&2
    exit 2
    ;;
esac
