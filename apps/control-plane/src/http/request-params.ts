import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { TOKEN_QUERY_PARAM } from './credentials.js';
import { ApiError, type ParamProblem } from '../errors/api-error.js';
import type { EndpointDeclaration } from './endpoint.js';
import { pathParams } from './path-template.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The endpoint's parameters, decoded and validated by the endpoint guard. */
    corralParams: Record<string, unknown> | null;
  }
}

// ExtJS's cache buster, which PVE ignores.
const CACHE_BUSTER = '_dc';

/** What the router and body parsers made of a request: path placeholders, query string, body. */
export interface RequestParts {
  readonly params?: unknown;
  readonly query?: unknown;
  readonly body?: unknown;
}

/**
 * Merges path, query and body parameters into one namespace as PVE does (the query overrides the
 * body; a path value may be repeated but not contradicted), then validates them against the
 * declaration. Every bad parameter becomes one problem naming it; a string with a control
 * character (a NUL above all) is bad whatever the parameter.
 */
export function decodeParams(declaration: EndpointDeclaration, request: RequestParts): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...bodyObject(request.body), ...(request.query as Record<string, unknown> | undefined) };
  // Deleting only when present: a `delete` turns the object into a slow dictionary for the validation.
  if (CACHE_BUSTER in merged) delete merged[CACHE_BUSTER];
  // Credentials, read by the endpoint guard: never a parameter.
  if (request.query && TOKEN_QUERY_PARAM in (request.query as object)) delete merged[TOKEN_QUERY_PARAM];

  const problems: ParamProblem[] = [];
  for (const [name, value] of Object.entries(pathParams(declaration.path, (request.params as Record<string, string> | undefined) ?? {}))) {
    if (name in merged && String(merged[name]) !== value) {
      problems.push({ param: name, message: `parameter '${name}' conflicts with the value given in the path` });
    }
    merged[name] = value;
  }
  for (const [name, value] of Object.entries(merged)) {
    if (hasControlCharacter(value))
      problems.push({ param: name, message: `parameter '${name}': must not contain control characters other than tab and line breaks` });
  }
  const parsed = declaration.parameters.safeParse(merged);
  if (!parsed.success) problems.push(...parsed.error.issues.flatMap((issue) => describe(issue, merged)));
  // One item per bad parameter: the first thing wrong with it.
  const [first, ...rest] = problems.filter((problem, i) => problems.findIndex((p) => p.param === problem.param) === i);
  if (first) throw ApiError.invalidParams([first, ...rest]);
  return (parsed.data ?? {}) as Record<string, unknown>;
}

/** C0 controls but tab, line feed and carriage return, and DEL: never part of a name, a path or a setting, and a NUL breaks PostgreSQL's text. */
const CONTROL_CHARACTER = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

function hasControlCharacter(value: unknown): boolean {
  if (typeof value === 'string') return CONTROL_CHARACTER.test(value);
  return Array.isArray(value) && value.some(hasControlCharacter);
}

function bodyObject(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body === 'object' && !Array.isArray(body) && !Buffer.isBuffer(body)) return body as Record<string, unknown>;
  throw new ApiError('MALFORMED_BODY', 'the request body must be a JSON object or a form');
}

function describe(issue: z.core.$ZodIssue, input: Record<string, unknown>): ParamProblem[] {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({ param: key, message: `unknown parameter '${key}'` }));
  }
  const param = String(issue.path[0] ?? '');
  if (input[param] === undefined) return [{ param, message: `parameter '${param}' is missing` }];
  return [{ param, message: `parameter '${param}': ${issue.message}` }];
}

/** The validated parameters of the current request, typed by the handler as `ParamsOf<typeof decl>`. */
export const Params = createParamDecorator((_data: unknown, context: ExecutionContext) => {
  return context.switchToHttp().getRequest<FastifyRequest>().corralParams;
});
