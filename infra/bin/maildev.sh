#!/usr/bin/env bash
# Local SMTP sink for the email service: the installed maildev (npm devDependency), no Docker.
#
#   infra/bin/maildev.sh start    SMTP on 127.0.0.1:1025, web UI + REST API on http://127.0.0.1:1080
#   infra/bin/maildev.sh stop     TERM, bounded wait, then KILL
#   infra/bin/maildev.sh status   exit 0 when running and answering, 3 when not running
#   infra/bin/maildev.sh smoke    send one message over raw SMTP, read it back from /api/email, delete it
#   infra/bin/maildev.sh clear    DELETE /api/email/all
#
# Messages are kept in memory, at most MAILDEV_MAX_EMAILS of them: maildev's own --max-emails
# drops the oldest (and their files) as new ones arrive, so a load test cannot grow it without
# bound. REST API: GET /api/email (list), GET /api/email/:id, DELETE /api/email/:id,
# DELETE /api/email/all.
# Environment: MAILDEV_SMTP_PORT (1025), MAILDEV_WEB_PORT (1080), MAILDEV_START_TIMEOUT (s, 30),
# MAILDEV_MAX_EMAILS (5000; 0 = unlimited).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/lib/proc.sh"
# shellcheck disable=SC2034 # read by lib/proc.sh
PROC_TAG="[maildev]"
# shellcheck source=/dev/null
source "$PROC_REPO_ROOT/scripts/ensure-node.sh"

NAME=maildev
HOST=127.0.0.1
SMTP_PORT="${MAILDEV_SMTP_PORT:-1025}"
WEB_PORT="${MAILDEV_WEB_PORT:-1080}"
WEB_URL="http://$HOST:$WEB_PORT"
LOG="$(proc_dir "$NAME")/$NAME.log"
START_TIMEOUT="${MAILDEV_START_TIMEOUT:-30}"
# The emails of a default loadgen run (50 orders/s for 60 s) with room to spare, as many as
# Mailpit keeps in docker-compose.yml (MP_MAX_MESSAGES). The console finds an order's email by
# its Message-ID among the messages still held: the recent ones.
MAX_EMAILS="${MAILDEV_MAX_EMAILS:-5000}"
MAILDEV_BIN="$(readlink -f "$PROC_REPO_ROOT/node_modules/.bin/maildev" 2>/dev/null || true)"

start() {
  if proc_running "$NAME"; then
    proc_say "already running (pid $(proc_pid "$NAME")): SMTP $HOST:$SMTP_PORT, UI $WEB_URL"
    return 0
  fi
  if [ -z "$MAILDEV_BIN" ] || [ ! -f "$MAILDEV_BIN" ]; then
    proc_err "node_modules/.bin/maildev not found: run npm ci first"
    return 1
  fi
  local port
  for port in "$SMTP_PORT" "$WEB_PORT"; do
    if tcp_open "$HOST" "$port"; then
      proc_err "port $port is taken by a process this script did not start"
      return 1
    fi
  done
  local start=$EPOCHREALTIME
  # --ip binds only SMTP; the web server has its own --web-ip (default 0.0.0.0).
  # TMPDIR: maildev writes each message's .eml under $TMPDIR/maildev, and with --max-emails it
  # prunes that folder at start; a folder of its own keeps another maildev's files out of reach.
  proc_start "$NAME" "$LOG" env TMPDIR="$(proc_dir "$NAME")" node "$MAILDEV_BIN" \
    --smtp "$SMTP_PORT" --ip "$HOST" \
    --web "$WEB_PORT" --web-ip "$HOST" \
    --max-emails "$MAX_EMAILS"
  proc_say "waiting for $WEB_URL/api/email (up to ${START_TIMEOUT}s)"
  if ! wait_http "$WEB_URL/api/email" "$START_TIMEOUT" "$NAME" || ! wait_tcp "$HOST" "$SMTP_PORT" 5; then
    log_tail "$LOG"
    proc_stop "$NAME" 5 >/dev/null || true
    return 1
  fi
  local kept="keeps the newest $MAX_EMAILS messages"
  [ "$MAX_EMAILS" = 0 ] && kept="keeps every message"
  proc_say "ready after $(elapsed_since "$start")s: SMTP smtp://$HOST:$SMTP_PORT, UI $WEB_URL, $kept"
}

status() {
  if ! proc_running "$NAME"; then
    proc_say "not running"
    return 3
  fi
  if curl -fsS -o /dev/null --max-time 2 "$WEB_URL/api/email" && tcp_open "$HOST" "$SMTP_PORT"; then
    proc_say "running (pid $(proc_pid "$NAME")): SMTP $HOST:$SMTP_PORT, UI $WEB_URL"
  else
    proc_say "running (pid $(proc_pid "$NAME")) but not answering on $SMTP_PORT/$WEB_PORT"
    return 1
  fi
}

# Raw SMTP dialogue (no nodemailer needed), then read the message back through the REST API.
smoke() {
  status >/dev/null || { proc_err "not running: start it first"; return 1; }
  SMTP_HOST="$HOST" SMTP_PORT="$SMTP_PORT" WEB_URL="$WEB_URL" node - <<'EOF'
const net = require('node:net');
const { randomUUID } = require('node:crypto');

const token = randomUUID();
const subject = `maildev smoke ${token}`;
const to = 'smoke@example.test';

function smtpSend() {
  const lines = [
    null, // server greeting
    'EHLO localhost',
    'MAIL FROM:<pipeline@example.test>',
    `RCPT TO:<${to}>`,
    'DATA',
    [
      'From: Order Pipeline <pipeline@example.test>',
      `To: <${to}>`,
      `Subject: ${subject}`,
      `Message-ID: <${token}@example.test>`,
      'Content-Type: text/plain; charset=utf-8',
      '',
      `token ${token}`,
      '.',
    ].join('\r\n'),
    'QUIT',
  ];
  const expected = [220, 250, 250, 250, 354, 250, 221];
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(process.env.SMTP_PORT), process.env.SMTP_HOST);
    socket.setTimeout(5000, () => socket.destroy(new Error('SMTP timeout')));
    let step = 0;
    let buffer = '';
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      // A reply is complete when its last line has a space after the code ("250 ok", not "250-...").
      const replyEnd = /(^|\r\n)(\d{3}) [^\r\n]*\r\n$/.exec(buffer);
      if (!replyEnd) return;
      const code = Number(replyEnd[2]);
      if (code !== expected[step]) {
        socket.destroy(new Error(`step ${step}: expected ${expected[step]}, got: ${buffer.trim()}`));
        return;
      }
      buffer = '';
      step += 1;
      if (step < lines.length) socket.write(`${lines[step]}\r\n`);
      else socket.end();
    });
    socket.on('error', reject);
    socket.on('close', () => (step === lines.length ? resolve() : reject(new Error(`closed at step ${step}`))));
  });
}

(async () => {
  const base = process.env.WEB_URL;
  await smtpSend();
  let found;
  for (let i = 0; i < 20 && !found; i += 1) {
    const list = await (await fetch(`${base}/api/email`)).json();
    found = list.find((m) => m.subject === subject);
    if (!found) await new Promise((r) => setTimeout(r, 100));
  }
  if (!found) throw new Error(`message "${subject}" not in /api/email`);
  const toOk = found.to.some((a) => a.address === to);
  const textOk = String(found.text).includes(token);
  if (!toOk || !textOk) throw new Error(`unexpected message: ${JSON.stringify(found).slice(0, 500)}`);
  const del = await fetch(`${base}/api/email/${found.id}`, { method: 'DELETE' });
  if (!del.ok) throw new Error(`DELETE /api/email/${found.id} -> ${del.status}`);
  console.log(`[maildev] smoke ok: sent over SMTP, read back id ${found.id} (to, subject, text), deleted`);
})().catch((err) => {
  console.error(`[maildev] smoke FAILED: ${err.message}`);
  process.exit(1);
});
EOF
}

clear_all() {
  curl -fsS -o /dev/null -X DELETE "$WEB_URL/api/email/all"
  proc_say "deleted all messages"
}

case "${1:-}" in
  start) start ;;
  stop) proc_stop "$NAME" ;;
  status) status ;;
  smoke) smoke ;;
  clear) clear_all ;;
  *)
    echo "usage: $0 start|stop|status|smoke|clear" >&2
    exit 2
    ;;
esac
