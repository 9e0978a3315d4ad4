import './telemetry';
import { runService } from '@pipeline/service-kit';
import { AppModule } from './app.module';
import { analyticsConfigSchema } from './config';

void runService({
  service: 'analytics',
  configSchema: analyticsConfigSchema,
  appModule: (config) => AppModule.forConfig(config),
});
