# syntax=docker/dockerfile:1
# One image for the five services and the operations console (pick one with
# SERVICE=order|payment|inventory|email|analytics|console), plus a `migrator` target that keeps
# the dev dependencies (the Prisma CLI) for the one-shot init job (create databases, prisma
# migrate deploy, provision Kafka topics).
#
#   docker build --target runtime -t order-pipeline:local .
#   docker run -e SERVICE=order -e DATABASE_URL=... -e KAFKA_BROKERS=... order-pipeline:local
#   docker build --target migrator -t order-pipeline-migrator:local .
#
# Keep NODE_VERSION equal to .nvmrc (tests/infra/compose.spec.ts checks it).
ARG NODE_VERSION=24.22.3

# ---- base: Node 24 on Debian bookworm, non-root from the start --------------------------
FROM node:${NODE_VERSION}-bookworm-slim AS base
ENV NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false \
    NX_DAEMON=false \
    NX_NO_CLOUD=true \
    CHECKPOINT_DISABLE=1 \
    PRISMA_HIDE_UPDATE_MESSAGE=1
RUN mkdir -p /app && chown node:node /app
WORKDIR /app
USER node

# ---- build: all dependencies, Prisma clients, dist/ ------------------------------------
FROM base AS build
COPY --chown=node:node package.json package-lock.json ./
COPY --chown=node:node patches ./patches
# --ignore-scripts: no package needs its install script here (native tools ship as optional
# platform packages); the Prisma schema engine is fetched explicitly in the migrator stage.
# It skips our own postinstall too, so the patches/ (kafkajs idle loop) are applied explicitly.
RUN --mount=type=cache,target=/home/node/.npm,uid=1000,gid=1000 \
    npm ci --ignore-scripts && npm run postinstall
COPY --chown=node:node . .
RUN npm run prisma:generate && npm run build

# ---- migrator: build output + dev dependencies (Prisma CLI) for the compose init job ------
FROM build AS migrator
# Any Prisma CLI command downloads the native schema engine on first use: do it at build time
# (images have internet), so that `prisma migrate deploy` in the init job needs no download.
RUN DATABASE_URL=postgresql://build@localhost/unused npx --no-install prisma version
CMD ["bash", "infra/docker/init.sh"]

# ---- prod-deps: production dependencies only ------------------------------------------
FROM base AS prod-deps
COPY --chown=node:node package.json package-lock.json ./
COPY --chown=node:node patches ./patches
# patch-package is a production dependency so that it is here to patch the runtime's kafkajs.
RUN --mount=type=cache,target=/home/node/.npm,uid=1000,gid=1000 \
    npm ci --omit=dev --ignore-scripts && npm run postinstall

# ---- runtime: what a service needs to run, nothing else --------------------------------
FROM base AS runtime
# The memory levers of scripts/lib/service-runtime.env (keep equal; a test checks): heap caps that
# keep each service under 200 MiB RSS, and two malloc arenas instead of eight per core.
ENV NODE_ENV=production \
    NODE_OPTIONS="--max-old-space-size=160 --max-semi-space-size=8" \
    MALLOC_ARENA_MAX=2
COPY --chown=node:node package.json ./
COPY --from=prod-deps --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
ARG SERVICE=""
ENV SERVICE=${SERVICE}
# Compose defines the healthchecks (GET /health/ready on each service's PORT, /health on the console's).
CMD ["sh", "-c", "case \"$SERVICE\" in order|payment|inventory|email|analytics) exec node \"dist/apps/${SERVICE}-service/src/main.js\";; console) exec node dist/apps/console/src/main.js;; *) echo \"SERVICE must be one of order, payment, inventory, email, analytics, console (got '$SERVICE')\" >&2; exit 64;; esac"]
