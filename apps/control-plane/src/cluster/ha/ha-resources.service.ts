import { Injectable } from '@nestjs/common';
import { ApiError } from '../../errors/api-error.js';
import { alreadyExists, badParam, isForeignKeyViolation, isUniqueViolation, notFound } from '../../errors/resource-errors.js';
import type { GuestRow } from '../../inventory/guests/guest.entity.js';
import type { ParamsOf } from '../../http/endpoint.js';
import { type GivenSid, type HaResourceType, parseSid } from './ha-params.js';
import { checkDigest, entryDigest, setAndDeleted } from '../../http/entry-changes.js';
import { sidOf } from './manager/sid.js';
import type { HaRequestedState, HaResourceRow } from '../../inventory/ha/ha-resource.entity.js';
import type { HaResourceEndpoints, HaResourceEntry } from './ha-resources.endpoints.js';
import { HaResourcesRepository, type ResourceChangeContext } from '../../inventory/ha/ha-resources.repository.js';

type CreateParams = ParamsOf<HaResourceEndpoints['create']>;
type UpdateParams = ParamsOf<HaResourceEndpoints['update']>;

const DEFAULT_ATTEMPTS = 1;

/**
 * The HA resources of `/cluster/ha/resources` (docs/ha.md "Configuration"). A resource belongs to
 * a guest that exists and is no template, of the sid's type; a requested state other than
 * `ignored` may not be asked for while an operation (backup, migrate, create, clone) holds the
 * guest's lock. The HA manager moves `crm_state` from there.
 */
@Injectable()
export class HaResourcesService {
  constructor(private readonly repository: HaResourcesRepository) {}

  async list(type: HaResourceType | undefined): Promise<HaResourceEntry[]> {
    return (await this.repository.all(type)).map(entryOf);
  }

  async get(sid: string): Promise<HaResourceEntry> {
    return entryOf(await this.existing(parseSid(sid)));
  }

  async create(params: CreateParams): Promise<void> {
    const given = parseSid(params.sid);
    if (given.type !== undefined && params.type !== undefined && params.type !== given.type)
      throw badParam('type', `type '${params.type}' does not match sid '${params.sid}'`);
    const sid = { type: given.type ?? params.type, vmid: given.vmid };
    await this.write(sid.vmid, params.group, async (context) => {
      const type = checkGuest(context.guest, sid, params.sid);
      if (context.current !== null) throw alreadyExists(`HA resource '${sidOf({ type, vmid: sid.vmid })}'`);
      const state = requested(params.state) ?? 'started';
      checkLock(context.guest, state);
      await checkGroup(context, params.group);
      return {
        vmid: sid.vmid,
        type,
        state,
        group: params.group ?? null,
        maxRestart: params.max_restart ?? DEFAULT_ATTEMPTS,
        maxRelocate: params.max_relocate ?? DEFAULT_ATTEMPTS,
        comment: params.comment || null,
        // Where the manager takes it from; it alone moves it afterwards.
        crmState: state,
        restarts: 0,
        relocations: 0,
      };
    });
  }

  /** Sets what is given and resets what `delete` names (the state to `started`, the attempts to 1). */
  async update(params: UpdateParams): Promise<void> {
    const { delete: deleted = [], digest } = params;
    const both = setAndDeleted(params, deleted);
    if (both !== undefined) throw badParam('delete', `cannot set and delete '${both}' at once`);
    const sid = parseSid(params.sid);
    await this.write(sid.vmid, params.group, async (context) => {
      const current = context.current;
      if (current === null || (sid.type !== undefined && sid.type !== current.type)) throw missing(params.sid);
      checkDigest(entryOf(current).digest, digest);
      const state = deleted.includes('state') ? 'started' : (requested(params.state) ?? current.state);
      if (state !== current.state) checkLock(context.guest, state);
      await checkGroup(context, params.group);
      return {
        ...current,
        state,
        group: deleted.includes('group') ? null : (params.group ?? current.group),
        maxRestart: deleted.includes('max_restart') ? DEFAULT_ATTEMPTS : (params.max_restart ?? current.maxRestart),
        maxRelocate: deleted.includes('max_relocate') ? DEFAULT_ATTEMPTS : (params.max_relocate ?? current.maxRelocate),
        comment: deleted.includes('comment') ? null : params.comment !== undefined ? params.comment || null : current.comment,
      };
    });
  }

  async remove(sid: string): Promise<void> {
    const resource = await this.existing(parseSid(sid));
    if (!(await this.repository.remove(resource.vmid))) throw missing(sid);
  }

  private async existing(sid: GivenSid): Promise<HaResourceRow> {
    const resource = await this.repository.find(sid.vmid);
    if (resource === null || (sid.type !== undefined && sid.type !== resource.type))
      throw missing(sid.type === undefined ? String(sid.vmid) : sidOf({ type: sid.type, vmid: sid.vmid }));
    return resource;
  }

  /** The write, with a concurrent create of the same resource a 409 and a group removed meanwhile a 400. */
  private async write(
    vmid: number,
    group: string | undefined,
    change: (context: ResourceChangeContext) => Promise<HaResourceRow>,
  ): Promise<void> {
    try {
      await this.repository.write(vmid, change);
    } catch (error) {
      if (isUniqueViolation(error)) throw alreadyExists(`HA resource for guest ${vmid}`);
      if (isForeignKeyViolation(error) && group !== undefined) throw unknownGroup(group);
      throw error;
    }
  }
}

/** The resource as PVE's `GET /cluster/ha/resources` shows it. */
export function entryOf(resource: HaResourceRow): HaResourceEntry {
  const entry = {
    sid: sidOf(resource),
    type: resource.type,
    state: resource.state,
    ...(resource.group !== null ? { group: resource.group } : {}),
    max_restart: resource.maxRestart,
    max_relocate: resource.maxRelocate,
    ...(resource.comment !== null ? { comment: resource.comment } : {}),
  };
  return { ...entry, digest: entryDigest(entry) };
}

/** The guest's resource type, once the guest exists, matches the sid and is no template. */
function checkGuest(guest: GuestRow | null, sid: { type: HaResourceType | undefined; vmid: number }, text: string): HaResourceType {
  if (guest === null) throw notFound(`${sid.type === 'ct' ? 'CT' : sid.type === 'vm' ? 'VM' : 'guest'} ${sid.vmid}`);
  const type: HaResourceType = guest.type === 'qemu' ? 'vm' : 'ct';
  if (sid.type !== undefined && sid.type !== type)
    throw badParam(
      'sid',
      `sid '${text}': guest ${sid.vmid} is a ${type === 'vm' ? 'VM' : 'container'}, its sid is '${sidOf({ type, vmid: sid.vmid })}'`,
    );
  if (guest.config['template'] === '1')
    throw badParam('sid', `sid '${text}': ${guest.type === 'qemu' ? 'VM' : 'CT'} ${sid.vmid} is a template, which HA cannot run`);
  return type;
}

/** Asking for a state the manager acts on would fight the operation that holds the guest's lock. */
function checkLock(guest: GuestRow | null, state: HaRequestedState): void {
  if (!guest?.lock || state === 'ignored') return;
  throw new ApiError(
    'GUEST_STATE',
    `${guest.type === 'qemu' ? 'VM' : 'CT'} ${guest.vmid} is locked (${guest.lock}): cannot request HA state '${state}' until the ${guest.lock} ends`,
  );
}

async function checkGroup(context: ResourceChangeContext, group: string | undefined): Promise<void> {
  if (group !== undefined && !(await context.groupExists(group))) throw unknownGroup(group);
}

function requested(state: CreateParams['state']): HaRequestedState | undefined {
  return state === 'enabled' ? 'started' : state;
}

/** A parameter naming a group that does not exist: a 400 on `group`, as any other bad parameter value (the path's resource exists). */
function unknownGroup(group: string): ApiError {
  return badParam('group', `HA group '${group}' does not exist`);
}

/** A 404 in PVE's words first ("no such resource 'vm:100'"), which Telmate's provider tells from other errors by. */
function missing(sid: string): ApiError {
  return notFound(`no such resource '${sid}': HA resource '${sid}'`);
}
