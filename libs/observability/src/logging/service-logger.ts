import { ConsoleLogger, type ConsoleLoggerOptions, type LogLevel } from '@nestjs/common';

export const LogLevels = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'] as const;

export interface ServiceLoggerOptions {
  readonly service: string;
  readonly level: LogLevel;
  /** JSON lines for machines (default), or Nest's coloured text for a terminal. */
  readonly json: boolean;
}

/** Every line names its service, so interleaved logs of the local stack stay readable. */
class ServiceLogger extends ConsoleLogger {
  constructor(
    private readonly service: string,
    options: ConsoleLoggerOptions,
  ) {
    super(options);
  }

  protected override getJsonLogObject(
    message: unknown,
    options: Parameters<ConsoleLogger['getJsonLogObject']>[1],
  ): ReturnType<ConsoleLogger['getJsonLogObject']> & { service: string } {
    return { service: this.service, ...super.getJsonLogObject(message, options) };
  }
}

export function createServiceLogger(options: ServiceLoggerOptions): ConsoleLogger {
  const enabled = LogLevels.slice(0, (LogLevels as readonly LogLevel[]).indexOf(options.level) + 1);
  return new ServiceLogger(options.service, {
    json: options.json,
    prefix: options.service,
    logLevels: enabled.length > 0 ? enabled : ['fatal', 'error', 'warn', 'log'],
  });
}
