import type { FastifyReply } from 'fastify';
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ErrorFormat } from '../config/config.js';
import type { ApiError } from '../errors/api-error.js';
import { ERROR_STATUS } from '../errors/error-status.js';
import { errorAnswer } from './error-body.js';
import { JSON_CONTENT_TYPE } from './json-content-type.js';
import { reasonPhrase } from './reason-phrase.js';

/**
 * After the answer, the connection still takes (and drops) what the client goes on sending, until
 * it pauses this long or at most the longer time: closing while its bytes arrive would reset the
 * connection, and a client that reads only once it has sent everything would lose the answer.
 */
const LINGER_PAUSE_MS = 2000;
const LINGER_MAX_MS = 30_000;

/**
 * Answers a request whose body will not be read (too large, or it stopped arriving) and closes
 * its connection, lingering; the answer goes out as any other (the access log has it), and Node
 * reads and drops the rest of the body meanwhile.
 */
export function answerUnreadBody(reply: FastifyReply, format: ErrorFormat, error: ApiError): void {
  const socket = reply.request.raw.socket as Socket & { destroySoon(): void };
  // An answer already on its way (a request forwarded to another replica) cannot be replaced: the connection ends.
  if (reply.raw.headersSent) return void socket.destroy();
  // Node destroys a connection marked `close` once the answer is out, and so resets it while the client still sends.
  socket.destroySoon = () => linger(socket);
  reply.hijack();
  writeError(reply.raw, format, error, { connection: 'close' });
}

/** Writes the error's envelope as the whole answer of a response no framework sends (a hijacked one). */
export function writeError(response: ServerResponse, format: ErrorFormat, error: ApiError, headers: OutgoingHttpHeaders = {}): void {
  const { status, reason, body } = envelope(format, error);
  response.writeHead(status, reason, { ...headers, 'content-type': JSON_CONTENT_TYPE, 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

/**
 * Answers an error the HTTP parser found before there was a request (its headers are too large or
 * malformed, or did not arrive in time) straight on the connection, then closes it, lingering.
 */
export function answerOnSocket(socket: Socket, format: ErrorFormat, error: ApiError): void {
  if (socket.destroyed) return;
  const { status, reason, body } = envelope(format, error);
  socket.on('error', () => undefined);
  socket.write(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: ${JSON_CONTENT_TYPE}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  linger(socket);
  socket.resume();
}

function envelope(format: ErrorFormat, error: ApiError): { status: number; reason: string; body: string } {
  const status = ERROR_STATUS[error.code];
  const answer = errorAnswer(format, error, status);
  return { status, reason: reasonPhrase(answer.reason), body: JSON.stringify(answer.body) };
}

/** Ends the connection; destroys it when the client pauses or at the latest time, unless it closed first. */
function linger(socket: Socket): void {
  socket.end();
  const destroy = () => socket.destroy();
  socket.setTimeout(LINGER_PAUSE_MS, destroy);
  const latest = setTimeout(destroy, LINGER_MAX_MS).unref();
  socket.once('close', () => clearTimeout(latest));
}
