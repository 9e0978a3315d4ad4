import type { PrismaClient } from '../generated/prisma/client';

/**
 * The service-kit's `DATABASE` provider is this service's generated PrismaClient; this alias
 * names the concrete type where it is injected (`@Inject(DATABASE) db: OrderDatabase`).
 */
export type OrderDatabase = PrismaClient;
