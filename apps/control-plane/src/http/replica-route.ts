import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import { ApiError } from '../errors/api-error.js';
import { writeError } from './socket-answer.js';

/** Only replicas read these answers, by their status and reason phrase: Corral's own error shape whatever CORRAL_ERROR_FORMAT says. */
export const REPLICA_ERROR_FORMAT = 'spec';

/**
 * Registers a `POST` route that only other replicas call (outside the API's prefix, so never
 * forwarded): `handle` writes the raw answer of a request a replica signed (HttpForwarding checked
 * the signature); any other request is refused with 401 and `refusal` as its reason.
 */
export function replicaRoute(
  fastify: FastifyInstance,
  path: string,
  refusal: string,
  handle: (request: FastifyRequest, response: ServerResponse) => Promise<void>,
): void {
  fastify.post(path, async (request: FastifyRequest, reply: FastifyReply) => {
    reply.hijack();
    if (request.corralForwardedFor === undefined)
      return writeError(reply.raw, REPLICA_ERROR_FORMAT, new ApiError('AUTHENTICATION_FAILED', refusal));
    await handle(request, reply.raw);
  });
}
