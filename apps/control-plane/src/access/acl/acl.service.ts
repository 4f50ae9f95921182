import { effectivePrivileges, isValidAclPath, normalizeAclPath, type AclEntry } from '@corral/acl';
import { Injectable } from '@nestjs/common';
import type { z } from 'zod';
import { ApiError, type ParamProblem } from '../../errors/api-error.js';
import { badParam } from '../../errors/resource-errors.js';
import { denial, permissionDenied, type CheckContext } from '../auth/authorizer.js';
import type { Principal } from '../../http/principal.js';
import { AccessState } from '../state/access-state.js';
import type { AclListing } from './acl.endpoints.js';
import { deleteEntries, lockReferences, upsertEntries, type AclReferences, type FoundReferences } from './acl.repository.js';
import { missingToGrant } from './grant-limit.js';

/** One request's change: the cross product of roles and holders on one path. */
export interface AclChange {
  readonly path: string;
  readonly roles: readonly string[];
  readonly users?: readonly string[];
  readonly groups?: readonly string[];
  readonly tokens?: readonly string[];
  readonly propagate: boolean;
  readonly remove: boolean;
}

/** Who may read every ACL entry and anyone's permissions (PVE). */
export const AUDIT_ACCESS = { kind: 'privileges', path: '/access', privileges: ['Sys.Audit'] } as const;
const HOLDERS = ['users', 'groups', 'tokens'] as const;
const HOLDER_TYPE = { users: 'user', groups: 'group', tokens: 'token' } as const;
const NAMED = { roles: 'role', users: 'user', groups: 'group', tokens: 'token' } as const;

@Injectable()
export class AclService {
  constructor(private readonly state: AccessState) {}

  /** As PVE: all entries with Sys.Audit on `/access`, else those on paths where the caller may change the ACL. */
  async list(caller: Principal): Promise<z.output<typeof AclListing>[]> {
    const context: CheckContext = { access: await this.state.current(), principal: caller, params: {} };
    const auditor = denial(AUDIT_ACCESS, context) === null;
    const visible = new Map<string, boolean>();
    const mayModify = (path: string): boolean => {
      let may = visible.get(path);
      if (may === undefined) visible.set(path, (may = denial({ kind: 'permModify', path }, context) === null));
      return may;
    };
    return context.access.acl
      .filter((entry) => auditor || mayModify(entry.path))
      .map((entry) => ({ ...entry, propagate: entry.propagate ? (1 as const) : (0 as const) }))
      .sort((a, b) => compare(a.path, b.path) || compare(a.type, b.type) || compare(a.ugid, b.ugid) || compare(a.roleid, b.roleid));
  }

  /** Every entry of the change in one transaction: all of it is written, or nothing. */
  async change(caller: Principal, change: AclChange): Promise<void> {
    const refs = references(change);
    // PVE skips the path check when deleting, so entries on paths no longer valid can go.
    const path = normalizeAclPath(change.path);
    if (!change.remove && !isValidAclPath(path)) throw badParam('path', `parameter 'path': invalid ACL path '${change.path}'`);
    const held = effectivePrivileges(await this.state.current(), caller.subject, path);
    await this.state.write(async (db) => {
      const found = await lockReferences(db, refs);
      refuseMissing(refs, found);
      for (const role of found.roles.values()) {
        const missing = missingToGrant(held, role, change);
        if (missing.length > 0) throw permissionDenied({ path, privileges: missing });
      }
      const entries = refs.roles.flatMap((roleid) =>
        HOLDERS.flatMap((list) =>
          refs[list].map((ugid): AclEntry => ({ path, type: HOLDER_TYPE[list], ugid, roleid, propagate: change.propagate })),
        ),
      );
      await (change.remove ? deleteEntries(db, entries) : upsertEntries(db, entries));
    });
  }
}

/** The change's ids without repeats; 400 when it names no role or no holder. */
function references(change: AclChange): AclReferences {
  const refs = { roles: unique(change.roles), users: unique(change.users), groups: unique(change.groups), tokens: unique(change.tokens) };
  if (HOLDERS.every((list) => refs[list].length === 0)) {
    refuse(HOLDERS.map((list) => ({ param: list, message: `parameter '${list}': either 'users', 'groups' or 'tokens' is required` })));
  }
  if (refs.roles.length === 0) throw badParam('roles', "parameter 'roles': at least one role is required");
  return refs;
}

/** 400 naming each list that holds an id that does not exist. */
function refuseMissing(refs: AclReferences, found: FoundReferences): void {
  const problems: ParamProblem[] = [];
  for (const list of ['roles', ...HOLDERS] as const) {
    const missing = refs[list].filter((id) => !found[list].has(id));
    if (missing.length > 0) {
      problems.push({
        param: list,
        message: `parameter '${list}': ${missing.map((id) => `${NAMED[list]} '${id}' does not exist`).join(', ')}`,
      });
    }
  }
  refuse(problems);
}

/** A 400 naming each parameter at fault, if any is. */
function refuse(problems: readonly ParamProblem[]): void {
  const [first, ...rest] = problems;
  if (first) throw ApiError.invalidParams([first, ...rest]);
}

function unique(ids: readonly string[] | undefined): string[] {
  return [...new Set(ids ?? [])];
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
