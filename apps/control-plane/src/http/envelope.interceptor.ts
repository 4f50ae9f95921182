import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply } from 'fastify';
import { map, type Observable } from 'rxjs';
import { ENDPOINT, type EndpointDeclaration } from './endpoint.js';
import { JSON_CONTENT_TYPE } from './json-content-type.js';

/** Wraps every result in spec 1's envelope, `{ "data": ... }`; the only place a success body is built. */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const declaration = this.reflector.get<EndpointDeclaration>(ENDPOINT, context.getHandler());
    context.switchToHttp().getResponse<FastifyReply>().header('content-type', JSON_CONTENT_TYPE);
    if (declaration.envelope === false) return next.handle();
    return next.handle().pipe(map((data: unknown) => ({ data: data ?? null })));
  }
}
