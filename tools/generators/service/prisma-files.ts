// A generated service's database: its schema folder with the shared outbox and inbox tables,
// copied from prisma/shared/ (the one source, scripts/db/shared-schema.mjs), its first
// migration, which is the shared SQL byte for byte, and the shared migrations that followed it.
import type { Tree } from '@nx/devkit';
import type { ServicePlan } from './plan.js';

export const SHARED_SCHEMA = 'prisma/shared/outbox-inbox.prisma';
export const SHARED_INIT_SQL = 'prisma/shared/outbox-inbox.init.sql';
export const SHARED_MIGRATIONS = 'prisma/shared/migrations';
/** Must equal COPY_HEADER of scripts/db/shared-schema.mjs: tests/infra/shared-schema.spec.ts compares. */
export const COPY_HEADER =
  '// GENERATED from prisma/shared/outbox-inbox.prisma by `npm run db:shared`: edit that file, not this one.\n';

/** `20261205103000`: Prisma Migrate's folder prefix. */
const migrationStamp = (now: Date): string => now.toISOString().replace(/[-:T]/g, '').slice(0, 14);

export function addPrismaSchema(tree: Tree, plan: ServicePlan, now = new Date()): void {
  const dir = `prisma/${plan.name}`;
  const read = (path: string): string => {
    const text = tree.read(path, 'utf-8');
    if (text === null) throw new Error(`${path} is missing: it is the one source of the outbox and inbox`);
    return text;
  };
  tree.write(`${dir}/outbox-inbox.prisma`, COPY_HEADER + read(SHARED_SCHEMA));
  tree.write(`${dir}/migrations/${migrationStamp(now)}_init/migration.sql`, read(SHARED_INIT_SQL));
  // Each a second after the one before, so Prisma applies them in this order.
  const shared = tree.children(SHARED_MIGRATIONS).filter((file) => file.endsWith('.sql'));
  shared.sort().forEach((file, index) => {
    const stamp = migrationStamp(new Date(now.getTime() + (index + 1) * 1000));
    const name = file.slice(0, -'.sql'.length);
    tree.write(`${dir}/migrations/${stamp}_${name}/migration.sql`, read(`${SHARED_MIGRATIONS}/${file}`));
  });
  tree.write(`${dir}/migrations/migration_lock.toml`, read('prisma/order/migrations/migration_lock.toml'));
  tree.write(
    `${dir}/prisma.config.ts`,
    `// Prisma 7 config for ${plan.app}. Prisma resolves these paths relative to this file.
// DATABASE_URL e.g. postgresql://postgres@127.0.0.1:5432/${plan.name}_service
import { defineConfig, env } from 'prisma/config';

export default defineConfig({
  schema: '.',
  migrations: { path: 'migrations' },
  datasource: { url: env('DATABASE_URL') },
});
`,
  );
  tree.write(
    `${dir}/schema.prisma`,
    `// ${plan.app} database (${plan.name}_service). Source of truth for its migrations:
// after editing, run \`node scripts/db/migrate.mjs create --service ${plan.name} --name <what>\`.
// The datasource URL lives in prisma.config.ts (Prisma 7).

generator client {
  provider               = "prisma-client"
  output                 = "../../apps/${plan.app}/src/generated/prisma"
  runtime                = "nodejs"
  moduleFormat           = "cjs"
  generatedFileExtension = "ts"
  importFileExtension    = ""
}

datasource db {
  provider = "postgresql"
}

// The outbox and inbox tables: outbox-inbox.prisma, a copy of prisma/shared/outbox-inbox.prisma.
// This service's own tables go here.
`,
  );
}
