import { Catch, ServiceUnavailableException, type ArgumentsHost } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import { BaseRpcExceptionFilter } from '@nestjs/microservices';
import { throwError, type Observable } from 'rxjs';
import { isHandlerContext, isUnavailable } from '@pipeline/messaging';

/**
 * Hands an event handler's error back to KafkaEventServer unchanged. Without it Nest's default
 * RPC filter replaces every error that is not an RpcException with `{ status: 'error', message:
 * 'Internal server error' }`, and the failure policy can no longer tell a TypeError (fatal) from
 * a lost connection (retriable). Anything else (HTTP requests in a hybrid application, other
 * transports) gets Nest's default handling, so the filter is safe to register globally:
 * `app.useGlobalFilters(new EventErrorFilter(app.getHttpAdapter()))` before
 * `connectMicroservice(..., { inheritAppConfig: true })`, or `@UseFilters(EventErrorFilter)` on
 * the event controllers.
 */
@Catch()
export class EventErrorFilter extends BaseExceptionFilter {
  private readonly rpcFallback = new BaseRpcExceptionFilter();

  override catch(exception: unknown, host: ArgumentsHost): Observable<unknown> | void {
    if (host.getType() === 'http' && isUnavailable(exception)) {
      // Not the client's fault and not a bug: 503 with Retry-After, so clients back off and retry
      // (with the same Idempotency-Key, nothing is done twice).
      setHeader(host.switchToHttp().getResponse<HttpResponse>(), 'Retry-After', '1');
      return super.catch(
        new ServiceUnavailableException('the database is unavailable or overloaded; retry shortly'),
        host,
      );
    }
    if (host.getType() !== 'rpc') return super.catch(exception, host);
    if (isHandlerContext(host.switchToRpc().getContext())) return throwError(() => exception);
    return this.rpcFallback.catch(exception, host);
  }
}

/** A Fastify reply (`header`) or a Node/Express response (`setHeader`). */
type HttpResponse =
  { header(name: string, value: string): unknown } | { setHeader(name: string, value: string): unknown };

function setHeader(response: HttpResponse, name: string, value: string): void {
  if ('header' in response) response.header(name, value);
  else response.setHeader(name, value);
}
