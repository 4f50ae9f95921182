import type { FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** The address of the client of a request another replica forwarded here, as that replica signed it. */
    corralForwardedFor?: string;
  }
}

/** The address the request's client connected from: to this replica, or to the replica that forwarded it. */
export function clientAddress(request: FastifyRequest): string {
  return request.corralForwardedFor ?? request.ip;
}
