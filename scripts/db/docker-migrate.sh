#!/usr/bin/env sh
# Container entrypoint for migrations (images with internet access, where the
# Prisma CLI can fetch its native schema engine): create the five service
# databases if missing, then `prisma migrate deploy` each service's folder.
#
# Env: PGHOST PGPORT PGUSER PGPASSWORD (libpq; defaults 127.0.0.1 5432 postgres "").
# Optional per-service URL override: ORDER_DATABASE_URL, PAYMENT_DATABASE_URL, ...
# Run from the repository root (or anywhere: it cd's there). Needs node, pg and prisma.
set -eu
cd "$(dirname "$0")/../.."

: "${PGHOST:=127.0.0.1}"
: "${PGPORT:=5432}"
: "${PGUSER:=postgres}"
: "${PGPASSWORD:=}"
export PGHOST PGPORT PGUSER PGPASSWORD

PRISMA="${PRISMA:-node_modules/.bin/prisma}"
[ -x "$PRISMA" ] || PRISMA="npx --no-install prisma"

# URL-encode user/password (they may contain @ : / etc.).
urlenc() { node -e 'process.stdout.write(encodeURIComponent(process.argv[1]))' "$1"; }

node scripts/db/create-databases.mjs

AUTH="$(urlenc "$PGUSER")"
[ -n "$PGPASSWORD" ] && AUTH="$AUTH:$(urlenc "$PGPASSWORD")"

# The service list of scripts/db/lib.mjs (SERVICES): one list for every database tool.
for s in $(node --input-type=module -e "import('./scripts/db/lib.mjs').then((m) => console.log(m.SERVICES.join(' ')))"); do
  override_var="$(echo "$s" | tr '[:lower:]' '[:upper:]')_DATABASE_URL"
  eval "override=\${$override_var:-}"
  if [ -n "$override" ]; then
    DATABASE_URL="$override"
  else
    DATABASE_URL="postgresql://$AUTH@$PGHOST:$PGPORT/${s}_service"
  fi
  echo "docker-migrate: $s"
  DATABASE_URL="$DATABASE_URL" $PRISMA migrate deploy --config "prisma/$s/prisma.config.ts"
done
echo "docker-migrate: done"
