import './telemetry';
import { runService } from '@pipeline/service-kit';
import { AppModule } from './app.module';
import { orderConfigSchema } from './config';

void runService({
  service: 'order',
  configSchema: orderConfigSchema,
  appModule: (config) => AppModule.forConfig(config),
});
