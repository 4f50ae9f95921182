import { effectivePrivileges, fillAclPath, SUPERUSER, type Privilege } from '@corral/acl';
import { ApiError } from '../../errors/api-error.js';
import { realmOf } from '../access-params.js';
import type { Check } from '../../http/endpoint.js';
import type { AccessSnapshot } from '../state/access-snapshot.js';
import type { Principal } from '../../http/principal.js';

/** Why a check failed, for the reason phrase: PVE's `Permission check failed (/vms/100, VM.PowerMgmt)`. */
export interface Denial {
  readonly path?: string;
  readonly privileges?: readonly Privilege[];
}

export interface CheckContext {
  readonly access: AccessSnapshot;
  readonly principal: Principal;
  readonly params: Readonly<Record<string, unknown>>;
}

/** Null when the caller passes the check, else what it lacked. root@pam passes every check. */
export function denial(check: Check, context: CheckContext): Denial | null {
  if (context.principal.subject.kind === 'user' && context.principal.userid === SUPERUSER) return null;
  return evaluate(check, context);
}

function evaluate(check: Check, context: CheckContext): Denial | null {
  switch (check.kind) {
    case 'privileges': {
      const params = withRealm(context.params);
      // A path of an optional parameter that was not given (`/pool/{pool}` of a create without `pool`) grants nothing.
      if (placeholders(check.path).some((name) => params[name] === undefined)) return { path: check.path, privileges: check.privileges };
      const path = fillAclPath(check.path, params);
      return holds(context, path, check.privileges, check.any) ? null : { path, privileges: check.privileges };
    }
    // As PVE: a token is not its user here, or a token without privileges could mint one with them.
    case 'self':
      return context.principal.tokenid === null && context.params[check.param] === context.principal.userid ? null : {};
    case 'groups': {
      const paths = groupPaths(context, context.params[check.param]);
      const ok =
        paths.kind === 'each'
          ? paths.paths.every((p) => holds(context, p, check.privileges, check.any))
          : paths.paths.some((p) => holds(context, p, check.privileges, check.any));
      return ok ? null : { path: '/access/groups', privileges: check.privileges };
    }
    case 'permModify': {
      const path = fillAclPath(check.path, context.params);
      const privileges: Privilege[] = ['Permissions.Modify', ...allocatePrivilege(path)];
      return holds(context, path, privileges, true) ? null : { path, privileges };
    }
    case 'anyOf': {
      const denials = check.checks.map((c) => evaluate(c, context));
      return denials.some((d) => d === null) ? null : {};
    }
    case 'allOf':
      return check.checks.map((c) => evaluate(c, context)).find((d) => d !== null) ?? null;
  }
}

function placeholders(template: string): string[] {
  return [...template.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] ?? '');
}

function holds(context: CheckContext, path: string, privileges: readonly Privilege[], any = false): boolean {
  const held = effectivePrivileges(context.access, context.principal.subject, path);
  return any ? privileges.some((p) => held.has(p)) : privileges.every((p) => held.has(p));
}

/** `{realm}` in a path may come from a `userid` parameter (`/access/realm/{realm}` when creating a user). */
function withRealm(params: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  if (params['realm'] !== undefined || typeof params['userid'] !== 'string') return params;
  return { ...params, realm: realmOf(params['userid']) };
}

/**
 * PVE's `userid-group`: a user id names the groups the user is in (any of them, or
 * `/access/groups`, will do); a list of group ids needs each of them (or `/access/groups` when empty).
 */
function groupPaths(context: CheckContext, value: unknown): { kind: 'any' | 'each'; paths: string[] } {
  if (typeof value === 'string') {
    const groups = context.access.users.get(value)?.groups ?? [];
    return { kind: 'any', paths: ['/access/groups', ...groups.map((g) => `/access/groups/${g}`)] };
  }
  const groups = Array.isArray(value) ? value.map(String) : [];
  return groups.length > 0
    ? { kind: 'each', paths: groups.map((g) => `/access/groups/${g}`) }
    : { kind: 'each', paths: ['/access/groups'] };
}

function allocatePrivilege(path: string): Privilege[] {
  if (/^\/storage\/./.test(path)) return ['Datastore.Allocate'];
  if (/^\/vms\/./.test(path)) return ['VM.Allocate'];
  if (/^\/pool\/./.test(path)) return ['Pool.Allocate'];
  return [];
}

/** Corral's 403, `permission denied`, with PVE's detail in the reason phrase: `Permission check failed (/vms/100, VM.PowerMgmt)`. */
export function permissionDenied(denied: Denial = {}): ApiError {
  const detail = denied.path ? ` (${denied.path}, ${(denied.privileges ?? []).join('|')})` : '';
  return new ApiError('PERMISSION_DENIED', 'permission denied', { reason: `permission denied - Permission check failed${detail}` });
}
