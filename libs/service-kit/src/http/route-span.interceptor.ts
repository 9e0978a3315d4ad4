import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { trace } from '@opentelemetry/api';
import { ATTR_HTTP_ROUTE } from '@opentelemetry/semantic-conventions';
import type { Request } from 'express';
import type { Observable } from 'rxjs';
import { routeTemplate } from './route-template';

/**
 * Names the HTTP server span after its route (`POST /orders`, `GET /orders/:id`) once Nest has
 * routed the request: the instrumentation only knows the method. Event handlers pass through.
 */
@Injectable()
export class RouteSpanInterceptor implements NestInterceptor {
  intercept(execution: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (execution.getType() === 'http') {
      const request = execution.switchToHttp().getRequest<Request>();
      const route = routeTemplate(request);
      const span = trace.getActiveSpan();
      if (route !== undefined && span !== undefined) {
        span.updateName(`${request.method} ${route}`);
        span.setAttribute(ATTR_HTTP_ROUTE, route);
      }
    }
    return next.handle();
  }
}
