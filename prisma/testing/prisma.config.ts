// Prisma 7 config of the messaging test schema (generate only; tests create their databases).
import { defineConfig, env } from 'prisma/config';

export default defineConfig({
  schema: '.',
  datasource: { url: env('DATABASE_URL') },
});
