import './telemetry';
import { runService } from '@pipeline/service-kit';
import { AppModule } from './app.module';
import { inventoryConfigSchema } from './config';

void runService({
  service: 'inventory',
  configSchema: inventoryConfigSchema,
  appModule: (config) => AppModule.forConfig(config),
});
