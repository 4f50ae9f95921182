import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error.js';
import { ENDPOINT, type EndpointDeclaration, type Permission } from './endpoint.js';
import { decodeParams } from './request-params.js';

/**
 * The one guard every route passes, in PVE's order: credentials (401), parameters (400),
 * privileges (403). It fails closed: a route without a declaration is refused.
 */
@Injectable()
export class EndpointGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const declaration = this.reflector.get<EndpointDeclaration | undefined>(ENDPOINT, context.getHandler());
    if (!declaration) throw new ApiError('INTERNAL', 'route without an endpoint declaration');
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (request.method === 'GET' && hasBody(request)) {
      throw new ApiError('UNEXPECTED_BODY', `unexpected request body for method 'GET': send parameters in the query string`);
    }
    authenticate(declaration.permission);
    request.corralParams = decodeParams(declaration, request);
    return true;
  }
}

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined;
}

// Credentials are not verified yet (access control is its own issue), so every endpoint that
// needs them answers 401: closed, never open.
function authenticate(permission: Permission): void {
  if (permission.kind !== 'public') throw new ApiError('AUTHENTICATION_FAILED', 'authentication failed');
}
