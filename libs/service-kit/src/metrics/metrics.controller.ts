import { Controller, Get, Header } from '@nestjs/common';
import { metricsRegistry, renderMetrics } from '@pipeline/observability';

/** Prometheus text format of every metric this process exports (see docs/observability.md). */
@Controller('metrics')
export class MetricsController {
  @Get()
  @Header('Content-Type', metricsRegistry.contentType)
  @Header('Cache-Control', 'no-store')
  metrics(): Promise<string> {
    return renderMetrics();
  }
}
