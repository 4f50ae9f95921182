import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import { Authenticator } from './authenticator.js';
import { denial, permissionDenied } from './authorizer.js';
import { readCredentials, TOKEN_QUERY_PARAM } from '../../http/credentials.js';
import type { Principal } from '../../http/principal.js';
import { AccessState } from '../state/access-state.js';
import { ApiError } from '../../errors/api-error.js';
import { notFound } from '../../errors/resource-errors.js';
import { NodeView } from '../../inventory/nodes/node-view.js';
import { ENDPOINT, type EndpointDeclaration } from '../../http/endpoint.js';
import { readUploadForm, refuseMultipart } from '../../http/multipart-upload.js';
import { pathParams } from '../../http/path-template.js';
import { decodeParams, type RequestParts } from '../../http/request-params.js';
import { clientAddress } from '../../http/client-address.js';

/** The endpoints of one node: `/nodes/{node}` and everything under it. */
const NODE_PATH = /^\/nodes\/\{node\}(?:\/|$)/;

/**
 * The one guard every route passes, in PVE's order: credentials (401), the node of a
 * `/nodes/{node}/...` endpoint (404), parameters (400), privileges (403). It fails closed: a route without a declaration is refused, and every
 * endpoint that is not public needs a caller who passes its declared check.
 */
@Injectable()
export class EndpointGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: Authenticator,
    private readonly access: AccessState,
    private readonly nodes: NodeView,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const declaration = this.reflector.get<EndpointDeclaration | undefined>(ENDPOINT, context.getHandler());
    if (!declaration) throw new ApiError('INTERNAL', 'route without an endpoint declaration');
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (request.method === 'GET' && hasBody(request)) {
      throw new ApiError('UNEXPECTED_BODY', `unexpected request body for method 'GET': send parameters in the query string`);
    }
    refuseMultipart(request, declaration);
    // Public endpoints stay synchronous: GET /version is the benchmark's route.
    if (declaration.permission.kind === 'public') {
      request.corralParams = decodeParams(declaration, request);
      return true;
    }
    return this.authorize(declaration, request);
  }

  private async authorize(declaration: EndpointDeclaration, request: FastifyRequest): Promise<boolean> {
    // An upload's parameters are the form's fields before its file, whose bytes stay unread for the handler.
    const parts =
      declaration.upload && request.isMultipart()
        ? { params: request.params, query: request.query, body: await readUploadForm(request, declaration.upload) }
        : request;
    const { principal, params } = await admit({ authenticator: this.authenticator, access: this.access, nodes: this.nodes }, declaration, {
      method: request.method,
      headers: request.headers,
      address: clientAddress(request),
      parts,
    });
    const node = params['node'];
    if (NODE_PATH.test(declaration.path) && typeof node === 'string' && this.nodes.get(node) === undefined)
      throw notFound(`node '${node}'`);
    request.corralParams = params;
    request.corralPrincipal = principal;
    return true;
  }
}

/** A request to admit: as the router parsed it, or as a websocket upgrade's URL gives it (upgrades bypass the router and this guard). */
export interface AdmissionRequest {
  readonly method: string;
  readonly headers: IncomingHttpHeaders;
  readonly address: string;
  readonly parts: RequestParts;
}

/**
 * The guard's checks of an endpoint that is not public, in PVE's order: credentials (401), the
 * node (404 `node 'x' does not exist` for a node that never joined, before anything tries to
 * reach its agent; any caller who logged in may list the nodes), parameters (400), privileges
 * (403). Resolves with the caller and the validated parameters.
 */
export async function admit(
  checks: { readonly authenticator: Authenticator; readonly access: AccessState; readonly nodes: NodeView },
  declaration: EndpointDeclaration,
  request: AdmissionRequest,
): Promise<{ principal: Principal; params: Record<string, unknown> }> {
  const principal = await checks.authenticator.authenticate({
    credentials: readCredentials({
      authorization: request.headers.authorization,
      cookie: request.headers.cookie,
      tokenQuery: (request.parts.query as Record<string, unknown> | undefined)?.[TOKEN_QUERY_PARAM],
    }),
    method: request.method,
    address: request.address,
    csrfToken: header(request.headers, 'csrfpreventiontoken'),
  });
  if (declaration.allowToken === false && principal.tokenid !== null) {
    throw new ApiError('PERMISSION_DENIED', 'permission denied', {
      reason: `permission denied - ${declaration.path} is not available with an API token, log in with a password`,
    });
  }
  requireNode(checks.nodes, declaration, request.parts);
  const params = decodeParams(declaration, request.parts);
  const permission = declaration.permission;
  if (permission.kind !== 'authenticated' && permission.kind !== 'public') {
    const denied = denial(permission, { access: await checks.access.current(), principal, params });
    if (denied) throw permissionDenied(denied);
  }
  return { principal, params };
}

function requireNode(nodes: NodeView, declaration: EndpointDeclaration, parts: RequestParts): void {
  if (!NODE_PATH.test(declaration.path)) return;
  const { node } = pathParams(declaration.path, (parts.params as Record<string, string> | undefined) ?? {});
  if (node !== undefined && nodes.get(node) === undefined) throw notFound(`node '${node}'`);
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined;
}
