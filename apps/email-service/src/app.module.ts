import { type DynamicModule, Module } from '@nestjs/common';
import { Topics } from '@pipeline/contracts';
import { ServiceCoreModule } from '@pipeline/service-kit';
import type { EmailConfig } from './config';
import { PrismaClient } from './generated/prisma/client';
import { SendOrderEmailsModule } from './send-order-emails/send-order-emails.module';

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
          consumes: [Topics.orders],
        }),
        SendOrderEmailsModule,
      ],
    };
  }
}
