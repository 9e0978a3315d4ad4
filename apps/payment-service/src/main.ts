import './telemetry';
import { runService } from '@pipeline/service-kit';
import { AppModule } from './app.module';
import { paymentConfigSchema } from './config';

void runService({
  service: 'payment',
  configSchema: paymentConfigSchema,
  appModule: (config) => AppModule.forConfig(config),
});
