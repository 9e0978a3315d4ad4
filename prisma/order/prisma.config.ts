// Prisma 7 config for order-service. Prisma resolves these paths relative to this file.
// DATABASE_URL e.g. postgresql://postgres@127.0.0.1:5432/order_service
import { defineConfig, env } from 'prisma/config';

export default defineConfig({
  schema: '.',
  migrations: { path: 'migrations' },
  datasource: { url: env('DATABASE_URL') },
});
