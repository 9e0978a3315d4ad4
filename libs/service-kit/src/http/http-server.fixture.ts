import { Body, Controller, Get, type INestApplication, Module, Param, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { RetriableError } from '@pipeline/messaging';
import { EventErrorFilter } from '../bootstrap/event-error.filter';
import { configureHttpServer, createHttpAdapter } from './http-server';

@Controller('things')
class ThingsController {
  @Post()
  create(@Body() body: unknown): { got: unknown } {
    return { got: body ?? null };
  }

  @Get(':id')
  get(@Param('id') id: string): { id: string } {
    // What inTransaction throws when the pool has no connection in time.
    if (id === 'busy') throw new RetriableError('no database connection free', { code: '08001' });
    return { id };
  }
}

@Module({ controllers: [ThingsController] })
class ThingsModule {}

/** The HTTP set-up of runService around one test controller, listening on a free port. */
export async function startTestApp(): Promise<{ app: INestApplication; baseUrl: string }> {
  const app = await NestFactory.create<NestFastifyApplication>(ThingsModule, createHttpAdapter(), {
    logger: false,
    bodyParser: false,
  });
  configureHttpServer(app.getHttpAdapter().getInstance());
  app.useGlobalFilters(new EventErrorFilter(app.getHttpAdapter()));
  await app.listen(0, '127.0.0.1');
  return { app, baseUrl: await app.getUrl() };
}
