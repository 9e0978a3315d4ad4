import './telemetry';
import { runService } from '@pipeline/service-kit';
import { AppModule } from './app.module';
import { emailConfigSchema } from './config';

void runService({
  service: 'email',
  configSchema: emailConfigSchema,
  appModule: (config) => AppModule.forConfig(config),
});
