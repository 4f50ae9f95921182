import { Catch, HttpException, NotFoundException, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { ErrorFormat } from '../config/config.js';
import { ApiError } from '../errors/api-error.js';
import { databaseUnreachable, isDatabaseUnreachable } from '../errors/database-unreachable.js';
import { ERROR_STATUS } from '../errors/error-status.js';
import { EndpointRegistry } from './endpoint-registry.js';
import { errorAnswer } from './error-body.js';
import { JSON_CONTENT_TYPE } from './json-content-type.js';
import { reasonPhrase } from './reason-phrase.js';
import { answerUnreadBody } from './socket-answer.js';
import { pathOf } from './request-path.js';

/**
 * Turns every failure (ours, the router's, the body parser's, the database's connection, or an unexpected exception) into
 * the error envelope of the configured format (`error-body.ts`: Corral's `errors` array by default), its message
 * also in the HTTP reason phrase. The only place an error body is sent, but for the answers written
 * straight on the connection (`socket-answer.ts`): a body too large is one of them.
 */
@Catch()
export class ErrorEnvelopeFilter implements ExceptionFilter {
  constructor(
    private readonly registry: EndpointRegistry,
    private readonly logger: Logger,
    private readonly format: ErrorFormat,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const error = this.toApiError(exception, request);
    const status = ERROR_STATUS[error.code];
    const answer = errorAnswer(this.format, error, status);
    const reply = http.getResponse<FastifyReply>();
    if (error.code === 'BODY_TOO_LARGE') {
      // The body will not be read: what the client still sends is dropped while the connection closes.
      return answerUnreadBody(reply, this.format, error);
    }
    reply.raw.statusMessage = reasonPhrase(answer.reason);
    reply
      .status(status)
      .headers({ ...error.details.headers, 'content-type': JSON_CONTENT_TYPE })
      .send(answer.body);
  }

  private toApiError(exception: unknown, request: FastifyRequest): ApiError {
    if (exception instanceof ApiError) return exception;
    // The router's answer for a request that matched no route.
    if (exception instanceof NotFoundException) return this.registry.miss(request.method, request.url);
    const framework = fromFramework(exception, request);
    if (framework) return framework;
    if (isDatabaseUnreachable(exception)) {
      this.logger.warn({ reqId: request.id, method: request.method, path: pathOf(request.url), err: exception }, 'database unreachable');
      return databaseUnreachable(exception);
    }
    this.logger.error({ reqId: request.id, method: request.method, path: pathOf(request.url), err: exception }, 'unexpected error');
    return new ApiError('INTERNAL', `internal error (request id ${request.id})`);
  }
}

/** Errors Fastify and Nest raise while reading a request, before any handler runs. */
function fromFramework(exception: unknown, request: FastifyRequest): ApiError | null {
  // Nest hands Fastify's own errors over wrapped in an HttpException, the original as its cause.
  const original = exception instanceof HttpException && exception.cause !== undefined ? exception.cause : exception;
  const { code, message, statusCode } = (original ?? {}) as { code?: unknown; message?: unknown; statusCode?: unknown };
  switch (code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('BODY_TOO_LARGE', `request body too large: the limit is ${request.routeOptions.bodyLimit ?? 0} bytes`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(
        'UNSUPPORTED_MEDIA_TYPE',
        `unsupported content type '${request.headers['content-type'] ?? ''}': send application/json or application/x-www-form-urlencoded`,
      );
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('MALFORMED_BODY', `malformed JSON body: ${String(message)}`);
  }
  const status = exception instanceof HttpException ? exception.getStatus() : statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new ApiError('MALFORMED_REQUEST', `malformed request: ${String(message)}`);
  }
  return null;
}
