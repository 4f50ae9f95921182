import { applyDecorators, Header, HttpCode, RequestMapping, RequestMethod, SetMetadata } from '@nestjs/common';
import type { Privilege } from '@corral/acl';
import type { z } from 'zod';
import { JSON_CONTENT_TYPE } from './json-content-type.js';
import { JsonText } from './json-text.js';
import { routerPath } from './path-template.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * A permission check, in the shape of PVE's `check` forms:
 * - `privileges`: all of them (or `any` one) on an ACL path whose `{placeholders}` are filled from
 *   the validated parameters (`{realm}` also from a `userid` parameter's realm);
 * - `self`: the parameter `param` names the caller's own user (PVE `userid-param self`);
 * - `groups`: the privileges on `/access/groups`, or on `/access/groups/<g>` for a group `g` of the
 *   user named by `param` (PVE `userid-group`), or, when `param` is a list of group ids, on each of
 *   them (on `/access/groups` when it is empty or absent);
 * - `permModify`: may change the ACL on `path` (PVE `perm-modify`): Permissions.Modify there, or the
 *   allocate privilege of its kind (`/vms` VM.Allocate, `/storage` Datastore.Allocate, `/pool` Pool.Allocate);
 * - `anyOf`, `allOf`: combinations.
 */
export type Check =
  | {
      readonly kind: 'privileges';
      readonly path: string;
      readonly privileges: readonly [Privilege, ...Privilege[]];
      readonly any?: boolean;
    }
  | { readonly kind: 'self'; readonly param: string }
  | { readonly kind: 'groups'; readonly param: string; readonly privileges: readonly [Privilege, ...Privilege[]]; readonly any?: boolean }
  | { readonly kind: 'permModify'; readonly path: string }
  | { readonly kind: 'anyOf' | 'allOf'; readonly checks: readonly [Check, ...Check[]] };

/**
 * Who may call an endpoint (PVE's `permissions` in its schema):
 * - `public`: no credentials at all (`/version`; `POST /access/ticket`);
 * - `authenticated`: any authenticated caller, the service filters what it returns (PVE `user: all`);
 * - a check on the caller's privileges, evaluated after the parameters are valid.
 */
export type Permission = { readonly kind: 'public' } | { readonly kind: 'authenticated' } | Check;

/**
 * One endpoint, declared once. Request validation, the permission check, the OpenAPI document and
 * the route table all read this declaration; a route without one stops the app from starting.
 */
export interface EndpointDeclaration<P extends z.ZodObject = z.ZodObject, R extends z.ZodType = z.ZodType> {
  readonly method: HttpMethod;
  /** Relative to `/api2/json`, with `{placeholders}`. */
  readonly path: string;
  readonly summary: string;
  readonly description?: string;
  /** Path, query and body parameters in one strict object: an unknown parameter is a 400. */
  readonly parameters: P;
  readonly returns: R;
  readonly permission: Permission;
  /** `false` where PVE refuses API tokens (`allowtoken: 0`): changing a password, and tickets. */
  readonly allowToken?: false;
  /** `false` only for documents served as they are (the OpenAPI document, the metrics); every API result is `{ "data": ... }`. */
  readonly envelope?: false;
  /** A document's media type where it is not JSON (the metrics' text format): its handler returns the text. */
  readonly contentType?: string;
  /**
   * PVE's upload: a multipart form whose other parameters come before one file part, named as the
   * parameter `file`, whose value is then the file's name; its bytes, at most `maxBytes`, are a
   * stream for the handler (`@Uploaded()`, http/multipart-upload.ts). Not for public endpoints.
   */
  readonly upload?: { readonly file: string; readonly maxBytes: number };
}

export type ParamsOf<E extends EndpointDeclaration> = z.output<E['parameters']>;
export type ResultOf<E extends EndpointDeclaration> = z.output<E['returns']>;

export const ENDPOINT = Symbol('corral:endpoint');

/** Declares an endpoint; its parameter object is made strict, so an unknown parameter is a 400. */
export function endpoint<P extends z.ZodObject, R extends z.ZodType>(declaration: EndpointDeclaration<P, R>): EndpointDeclaration<P, R> {
  return Object.freeze({ ...declaration, parameters: declaration.parameters.strict() as unknown as P });
}

const NEST_METHOD: Record<HttpMethod, RequestMethod> = {
  GET: RequestMethod.GET,
  POST: RequestMethod.POST,
  PUT: RequestMethod.PUT,
  DELETE: RequestMethod.DELETE,
};

type Result<E extends EndpointDeclaration> = ResultOf<E> | JsonText<ResultOf<E>>;
type Handler<E extends EndpointDeclaration> = (...args: never[]) => Result<E> | Promise<Result<E>>;
type Method<E extends EndpointDeclaration> = <H extends Handler<E>>(
  target: object,
  key: string | symbol,
  descriptor: TypedPropertyDescriptor<H>,
) => void;

/**
 * Mounts a controller method as the declared endpoint (its return type must match `returns`) and
 * wraps its result in the envelope `{ "data": ... }`: the one place a success body is built. A
 * result already serialised (`JsonText`) gets the envelope as bytes and is sent as they are.
 * Done here rather than in a Nest interceptor, whose per-request observable chain cost a quarter
 * of the throughput of GET /version (docs/benchmarks.md).
 */
export function Endpoint<E extends EndpointDeclaration>(declaration: E): Method<E> {
  const mount = applyDecorators(
    RequestMapping({ path: routerPath(declaration.path), method: NEST_METHOD[declaration.method] }),
    // PVE answers every success with 200 (Nest's default for POST is 201).
    HttpCode(200),
    Header('Content-Type', declaration.contentType ?? JSON_CONTENT_TYPE),
    SetMetadata(ENDPOINT, declaration),
  );
  return (target, key, descriptor) => {
    if (declaration.envelope !== false && descriptor.value) descriptor.value = enveloped(descriptor.value);
    mount(target, key, descriptor);
  };
}

function enveloped<H extends (...args: never[]) => unknown>(handler: H): H {
  const wrap = (data: unknown) => (data instanceof JsonText ? data.enveloped() : { data: data ?? null });
  const wrapper = function (this: unknown, ...args: Parameters<H>) {
    const result = handler.apply(this, args);
    return result instanceof Promise ? result.then(wrap) : wrap(result);
  };
  // Metadata that decorators below this one put on the original handler stays visible.
  for (const key of Reflect.getMetadataKeys(handler)) Reflect.defineMetadata(key, Reflect.getMetadata(key, handler), wrapper);
  return Object.defineProperty(wrapper, 'name', { value: handler.name }) as unknown as H;
}
