import { type DynamicModule, Module } from '@nestjs/common';
import { ServiceCoreModule } from '@pipeline/service-kit';
import type { EmailConfig } from './config';
import { PrismaClient } from './generated/prisma/client';

@Module({})
export class AppModule {
  static forConfig(config: EmailConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ServiceCoreModule.forRoot({
          service: 'email',
          config,
          prismaClient: PrismaClient,
        }),
      ],
    };
  }
}
