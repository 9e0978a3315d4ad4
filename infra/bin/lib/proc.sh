# shellcheck shell=bash
# Shared helpers for the local infrastructure scripts (zipkin.sh, maildev.sh, kafka*.sh).
# Source this file; it defines functions and a few variables and runs nothing.
#
#   proc_start NAME LOGFILE CMD...   start CMD in the background (nohup), pid file .run/NAME/NAME.pid;
#                                    the previous run's LOGFILE is kept as LOGFILE.1
#   proc_stop NAME [TIMEOUT_S]       TERM, wait up to TIMEOUT_S (default $PROC_STOP_TIMEOUT or 20), then KILL
#   proc_running NAME                exit 0 when NAME's recorded process is alive
#   proc_pid NAME                    print the recorded pid (empty when none)
#   wait_http URL TIMEOUT_S [NAME]   poll until URL answers 2xx; with NAME, give up early if NAME died
#   wait_tcp HOST PORT TIMEOUT_S     poll until a TCP connection to HOST:PORT succeeds
#   tcp_open HOST PORT               one connection attempt (exit 0 when something listens)
#   elapsed_since START              seconds since START (a $EPOCHREALTIME value), e.g. "3.2"
#   log_tail LOGFILE [LINES]         print the end of a log file to stderr
#
# Layout: runtime data, logs and pid files live in the repo's git-ignored .run/<name>/;
# downloaded artifacts in $PIPELINE_CACHE_DIR.

PROC_REPO_ROOT="${PROC_REPO_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)}"
PROC_RUN_ROOT="${PROC_RUN_ROOT:-$PROC_REPO_ROOT/.run}"
PIPELINE_CACHE_DIR="${PIPELINE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/order-pipeline}"
PROC_STOP_TIMEOUT="${PROC_STOP_TIMEOUT:-20}"

# Prefix for messages; scripts set PROC_TAG (e.g. "[zipkin]").
proc_say() { echo "${PROC_TAG:-[proc]} $*"; }
proc_err() { echo "${PROC_TAG:-[proc]} $*" >&2; }

proc_dir() { echo "$PROC_RUN_ROOT/$1"; }
proc_pidfile() { echo "$PROC_RUN_ROOT/$1/$1.pid"; }

# Start time of a process in clock ticks since boot (field 22 of /proc/PID/stat):
# stored next to the pid so that a recycled pid is not mistaken for ours.
__proc_starttime() {
  local stat
  stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
  # Fields after the command name, which is in parentheses and may contain spaces.
  stat="${stat##*) }"
  # shellcheck disable=SC2086
  set -- $stat
  echo "${20}"
}

proc_pid() {
  local file
  file="$(proc_pidfile "$1")"
  [ -f "$file" ] && sed -n 1p "$file"
}

proc_running() {
  local file pid recorded current
  file="$(proc_pidfile "$1")"
  [ -f "$file" ] || return 1
  pid="$(sed -n 1p "$file")"
  recorded="$(sed -n 2p "$file")"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
  current="$(__proc_starttime "$pid")" || return 1
  [ -z "$recorded" ] || [ "$recorded" = "$current" ]
}

# proc_start NAME LOGFILE CMD...
# Returns 0 and does nothing when NAME is already running.
proc_start() {
  local name="$1" log="$2" pid
  shift 2
  if proc_running "$name"; then
    proc_say "already running (pid $(proc_pid "$name"))"
    return 0
  fi
  mkdir -p "$(proc_dir "$name")" "$(dirname "$log")"
  rm -f "$(proc_pidfile "$name")"
  [ ! -f "$log" ] || mv -f "$log" "$log.1"
  echo "=== $(date -u +%Y-%m-%dT%H:%M:%SZ) starting: $*" >"$log"
  # Without job control, & already makes the child ignore SIGINT/SIGQUIT;
  # nohup adds SIGHUP, so the process outlives the shell that started it.
  nohup "$@" >>"$log" 2>&1 </dev/null &
  pid=$!
  printf '%s\n%s\n' "$pid" "$(__proc_starttime "$pid" || true)" >"$(proc_pidfile "$name")"
  proc_say "started pid $pid (log: $log)"
}

# proc_stop NAME [TIMEOUT_S]
proc_stop() {
  local name="$1" timeout="${2:-$PROC_STOP_TIMEOUT}" pid start
  if ! proc_running "$name"; then
    proc_say "not running"
    rm -f "$(proc_pidfile "$name")"
    return 0
  fi
  pid="$(proc_pid "$name")"
  start=$EPOCHREALTIME
  kill -TERM "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null; do
    if (($(elapsed_ms "$start") >= timeout * 1000)); then
      proc_err "pid $pid still alive after ${timeout}s, sending KILL"
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.2
      break
    fi
    sleep 0.1
  done
  rm -f "$(proc_pidfile "$name")"
  proc_say "stopped pid $pid in $(elapsed_since "$start")s"
}

# Milliseconds since START (an $EPOCHREALTIME value).
elapsed_ms() {
  local now=$EPOCHREALTIME s_sec s_frac n_sec n_frac
  s_sec="${1%[.,]*}" s_frac="${1#*[.,]}"
  n_sec="${now%[.,]*}" n_frac="${now#*[.,]}"
  echo $(((n_sec - s_sec) * 1000 + (10#${n_frac:0:3} - 10#${s_frac:0:3})))
}

elapsed_since() {
  local ms
  ms="$(elapsed_ms "$1")"
  printf '%d.%d' $((ms / 1000)) $(((ms % 1000) / 100))
}

log_tail() {
  local log="$1"
  [ -f "$log" ] || return 0
  echo "----- last ${2:-30} lines of $log -----" >&2
  tail -n "${2:-30}" "$log" >&2
  echo "-----" >&2
}

tcp_open() {
  # shellcheck disable=SC2016 # $0/$1 expand in the child bash
  timeout 2 bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$1" "$2" 2>/dev/null
}

# wait_http URL TIMEOUT_S [NAME]
wait_http() {
  local url="$1" timeout="$2" name="${3:-}" start=$EPOCHREALTIME
  while true; do
    if curl -fsS -o /dev/null --max-time 2 "$url" 2>/dev/null; then
      return 0
    fi
    if [ -n "$name" ] && ! proc_running "$name"; then
      proc_err "$name exited while waiting for $url"
      return 1
    fi
    if (($(elapsed_ms "$start") >= timeout * 1000)); then
      proc_err "no answer from $url after ${timeout}s"
      return 1
    fi
    sleep 0.25
  done
}

# wait_tcp HOST PORT TIMEOUT_S
wait_tcp() {
  local host="$1" port="$2" timeout="$3" start=$EPOCHREALTIME
  until tcp_open "$host" "$port"; do
    if (($(elapsed_ms "$start") >= timeout * 1000)); then
      proc_err "nothing listening on $host:$port after ${timeout}s"
      return 1
    fi
    sleep 0.25
  done
}
