import { Injectable, type OnModuleInit } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants.js';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { ApiError } from '../errors/api-error.js';
import { ENDPOINT, type EndpointDeclaration, type HttpMethod } from './endpoint.js';
import { pathPattern, placeholders, restOfPathProblem } from './path-template.js';
import { pathOf } from './request-path.js';

export const API_PREFIX = '/api2/json';

interface Route {
  readonly declaration: EndpointDeclaration;
  readonly pattern: RegExp;
}

/**
 * Every endpoint the app serves, found on its controllers at start. Start fails when a route has no
 * declaration or a `{placeholder}` is not a declared parameter (the router itself refuses a route
 * declared twice).
 */
@Injectable()
export class EndpointRegistry implements OnModuleInit {
  private routes: readonly Route[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  onModuleInit(): void {
    const found: Route[] = [];
    const problems: string[] = [];
    for (const wrapper of this.discovery.getControllers()) {
      const instance = wrapper.instance as object | undefined;
      if (!instance) continue;
      const prototype = Object.getPrototypeOf(instance) as Record<string, unknown>;
      for (const name of this.scanner.getAllMethodNames(prototype)) {
        const handler = prototype[name] as (...args: unknown[]) => unknown;
        if (this.reflector.get(PATH_METADATA, handler) === undefined) continue;
        const declaration = this.reflector.get<EndpointDeclaration | undefined>(ENDPOINT, handler);
        if (!declaration) {
          problems.push(`${wrapper.name}.${name} is a route without an endpoint declaration (use @Endpoint)`);
          continue;
        }
        problems.push(...undeclaredPlaceholders(declaration));
        found.push({ declaration, pattern: pathPattern(declaration.path) });
      }
    }
    if (problems.length > 0) throw new Error(`refusing to start:\n- ${problems.join('\n- ')}`);
    this.routes = found;
  }

  get declarations(): readonly EndpointDeclaration[] {
    return this.routes.map((route) => route.declaration);
  }

  /** What a request that matched no route gets: 405 with `Allow` when the path exists, else 404. */
  miss(method: string, url: string): ApiError {
    const rawPath = pathOf(url);
    const path = rawPath.startsWith(`${API_PREFIX}/`) ? rawPath.slice(API_PREFIX.length) : null;
    const allowed = path === null ? [] : this.routes.filter((route) => route.pattern.test(path)).map((route) => route.declaration.method);
    if (allowed.length === 0) return new ApiError('NO_SUCH_PATH', `no such path '${rawPath}'`);
    const allow = [...new Set<HttpMethod | 'HEAD'>([...allowed, ...(allowed.includes('GET') ? (['HEAD'] as const) : [])])];
    return new ApiError('METHOD_NOT_ALLOWED', `method '${method}' is not allowed on '${rawPath}' (allowed: ${allow.join(', ')})`, {
      headers: { allow: allow.join(', ') },
    });
  }
}

function undeclaredPlaceholders(declaration: EndpointDeclaration): string[] {
  const rest = restOfPathProblem(declaration.path);
  return placeholders(declaration.path)
    .filter((placeholder) => !(placeholder in declaration.parameters.shape))
    .map((placeholder) => `${declaration.method} ${declaration.path}: path placeholder {${placeholder}} is not a declared parameter`)
    .concat(rest === null ? [] : [`${declaration.method} ${declaration.path}: ${rest}`]);
}
