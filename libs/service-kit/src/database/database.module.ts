import {
  type DynamicModule,
  Inject,
  Module,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { DatabaseHealthIndicator } from './database.health';
import { DATABASE, type DatabaseClient } from './database.tokens';

export interface DatabaseModuleOptions {
  /** Builds the service's own generated Prisma client (each service owns its database). */
  readonly createClient: () => DatabaseClient;
}

@Module({})
export class DatabaseModule implements OnModuleInit, OnApplicationShutdown {
  constructor(@Inject(DATABASE) private readonly client: DatabaseClient) {}

  static forRoot(options: DatabaseModuleOptions): DynamicModule {
    return {
      module: DatabaseModule,
      global: true,
      imports: [TerminusModule],
      providers: [{ provide: DATABASE, useFactory: options.createClient }, DatabaseHealthIndicator],
      exports: [DATABASE, DatabaseHealthIndicator],
    };
  }

  async onModuleInit(): Promise<void> {
    // Fail fast at start-up with the driver's own message (bad URL, missing database, refused).
    await this.client.$queryRawUnsafe('SELECT 1');
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client.$disconnect();
  }
}
