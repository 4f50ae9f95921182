import type { Socket } from 'node:net';
import type { ErrorFormat } from '../config/config.js';
import { ApiError } from '../errors/api-error.js';
import { answerOnSocket } from './socket-answer.js';

/** The limits the HTTP parser holds a request to before Fastify sees it. */
export interface ParserLimits {
  readonly maxHeaderBytes: number;
  readonly timeoutS: number;
}

/**
 * Fastify's `clientErrorHandler`: what Node's HTTP parser refuses before there is a request. Headers
 * over the limit are a 431, headers that did not arrive in time a 408, anything else a 400; each
 * in the error envelope, then the connection is closed. A connection the client reset gets nothing.
 */
export function clientErrorHandler(format: ErrorFormat, limits: ParserLimits): (error: NodeJS.ErrnoException, socket: Socket) => void {
  return (error, socket) => {
    if (error.code === 'ECONNRESET') return;
    answerOnSocket(socket, format, parserError(error, limits));
  };
}

function parserError(error: NodeJS.ErrnoException, limits: ParserLimits): ApiError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError('HEADERS_TOO_LARGE', `request headers too large: the limit is ${limits.maxHeaderBytes} bytes`);
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError('REQUEST_TIMEOUT', `request timeout: the headers did not arrive within ${limits.timeoutS} s`);
    default:
      return new ApiError('MALFORMED_REQUEST', `malformed request: ${error.message}`);
  }
}
