// The outbox and inbox tables are declared once, in prisma/shared/: every schema holds a copy
// of the models, every service's first migration is a byte-for-byte copy of the SQL, and so is
// each later change of the shared tables (prisma/shared/migrations/).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, SERVICES, schemaFilesOf } from '../../scripts/db/lib.mjs';
import {
  SCHEMA_OWNERS,
  SHARED_INIT_SQL,
  SHARED_SCHEMA,
  driftedCopies,
  initMigrationOf,
  sharedMigrationOf,
  sharedMigrations,
  renderSchemaCopy,
  schemaCopyPathOf,
} from '../../scripts/db/shared-schema.mjs';

const read = (file: string): string => readFileSync(file, 'utf8');

describe('prisma/shared is the one source of the outbox and inbox tables', () => {
  it('no copy has drifted (npm run db:shared rewrites them)', () => {
    expect(driftedCopies().map((copy) => path.relative(ROOT, copy.file))).toEqual([]);
  });

  it.each(SCHEMA_OWNERS)('prisma/%s/outbox-inbox.prisma is the shared models under a header', (owner) => {
    expect(read(schemaCopyPathOf(owner))).toBe(renderSchemaCopy(read(SHARED_SCHEMA)));
  });

  it.each(SERVICES)('%s-service: its init migration is the shared SQL, byte for byte', (service) => {
    const init = initMigrationOf(service);
    expect(init).toBeDefined();
    expect(read(init!)).toBe(read(SHARED_INIT_SQL));
  });

  it.each(SERVICES)('%s-service: holds every shared migration after its init, byte for byte', (service) => {
    const init = path.basename(path.dirname(initMigrationOf(service)!));
    for (const { name, file } of sharedMigrations()) {
      const copy = sharedMigrationOf(service, name);
      expect(copy, name).toBeDefined();
      expect(path.basename(path.dirname(copy!)) > init).toBe(true);
      expect(read(copy!)).toBe(read(file));
    }
  });

  it.each(SERVICES)('%s-service: only the copy declares Outbox and Inbox', (service) => {
    const declaring = schemaFilesOf(service).filter((file) => /^model (Outbox|Inbox) \{/m.test(read(file)));
    expect(declaring.map((file) => path.basename(file))).toEqual(['outbox-inbox.prisma']);
  });

  it('every schema folder under prisma/ takes part (no service left out of SERVICES)', () => {
    const folders = readdirSync(path.join(ROOT, 'prisma'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== 'shared')
      .map((entry) => entry.name);
    expect([...folders].sort()).toEqual([...SCHEMA_OWNERS].sort());
  });
});
