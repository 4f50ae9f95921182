import { z } from 'zod';
import { commentParam } from '../access/access-params.js';
import { ResourceEntry } from '../cluster/resources/resources.endpoints.js';
import { VMID_PARAM } from '../guests/guest.endpoints.js';
import { endpoint, type Check } from '../http/endpoint.js';
import { booleanParam, commaListParam, stringParam } from '../http/params.js';
import { poolidParam } from '../inventory/pools/pool-params.js';

// PVE's pve-storage-id.
const STORAGE_ID_PATTERN = /^[A-Za-z](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;

const MEMBER_TYPE = z
  .enum(['qemu', 'lxc', 'storage'], { error: 'must be qemu, lxc or storage' })
  .meta({ description: 'Only members of this kind.' });

export const PoolListEntry = z.object({
  poolid: z.string(),
  comment: z.string().optional(),
  members: z.array(ResourceEntry).optional().meta({ description: 'With `poolid` only.' }),
});

/** A pool's members are guests and storages as `/cluster/resources` shows them. */
export const PoolRecord = z.object({
  comment: z.string().optional(),
  members: z.array(ResourceEntry),
});

const MEMBER_CHANGES = {
  comment: commentParam().optional(),
  vms: commaListParam(VMID_PARAM, 'Guests to add (or with `delete`, to remove), comma separated.').optional(),
  storage: commaListParam(
    stringParam({ description: 'A storage.', pattern: STORAGE_ID_PATTERN, patternHint: 'must be a storage id' }),
    'Storages to add (or with `delete`, to remove), comma separated.',
  ).optional(),
  delete: booleanParam({ description: 'Remove the guests and storages given instead of adding them.' }).optional(),
  'allow-move': booleanParam({
    description: "Move a guest that is in another pool into this one (needs the right to change that pool's permissions).",
  }).optional(),
};

const AUDIT: Check = { kind: 'privileges', path: '/pool/{poolid}', privileges: ['Pool.Audit'] };
const ALLOCATE: Check = { kind: 'privileges', path: '/pool/{poolid}', privileges: ['Pool.Allocate'] };

/** The endpoints both path forms have: Corral's `/pool`, PVE's `/pools`. */
function poolEndpoints(form: { readonly base: '/pool' | '/pools'; readonly updateMethod: 'POST' | 'PUT' }) {
  const item = `${form.base}/{poolid}`;
  return {
    list: endpoint({
      method: 'GET',
      path: form.base,
      summary: 'List pools',
      description: 'Only pools the caller holds Pool.Audit on (`/pool/<poolid>`). With `poolid`, that pool alone, with its members.',
      parameters: z.object({ poolid: poolidParam().optional(), type: MEMBER_TYPE.optional() }),
      returns: z.array(PoolListEntry),
      permission: { kind: 'authenticated' },
    }),
    create: endpoint({
      method: 'POST',
      path: form.base,
      summary: 'Create a pool',
      parameters: z.object({ poolid: poolidParam(), comment: commentParam().optional() }),
      returns: z.null(),
      permission: ALLOCATE,
    }),
    get: endpoint({
      method: 'GET',
      path: item,
      summary: 'Read a pool and its members',
      description: 'Guests with their status as `/cluster/resources` shows them, and storages.',
      parameters: z.object({ poolid: poolidParam(), type: MEMBER_TYPE.optional() }),
      returns: PoolRecord,
      permission: AUDIT,
    }),
    update: endpoint({
      method: form.updateMethod,
      path: item,
      summary: "Add or remove a pool's guests and storages, or change its comment",
      description:
        'A guest is in at most one pool; a storage may be in several. An empty `comment` clears it. Adding or removing a guest or storage also needs the right to change its permissions (`/vms/<vmid>`: VM.Allocate, `/storage/<id>`: Datastore.Allocate, or Permissions.Modify on it).',
      parameters: z.object({ poolid: poolidParam(), ...MEMBER_CHANGES }),
      returns: z.null(),
      permission: ALLOCATE,
    }),
  };
}

export type PoolEndpoints = ReturnType<typeof poolEndpoints>;

export const SPEC_POOL_ENDPOINTS = poolEndpoints({ base: '/pool', updateMethod: 'POST' });
export const PVE_POOL_ENDPOINTS = poolEndpoints({ base: '/pools', updateMethod: 'PUT' });

/** Corral's way to take a guest out of its pool. */
export const removePoolGuest = endpoint({
  method: 'DELETE',
  path: '/pool/{poolid}/{vmid}',
  summary: 'Remove a guest from a pool',
  parameters: z.object({ poolid: poolidParam(), vmid: VMID_PARAM }),
  returns: z.null(),
  permission: { kind: 'allOf', checks: [ALLOCATE, { kind: 'permModify', path: '/vms/{vmid}' }] },
});

/** PVE 9's forms with `poolid` as a parameter (`PUT /pools`, `DELETE /pools?poolid=`), and `DELETE /pools/{poolid}`. */
export const updatePoolByParam = endpoint({ ...PVE_POOL_ENDPOINTS.update, path: '/pools' });

export const deletePool = endpoint({
  method: 'DELETE',
  path: '/pools/{poolid}',
  summary: 'Delete a pool',
  description: 'Only a pool without members; its ACL entries go with it.',
  parameters: z.object({ poolid: poolidParam() }),
  returns: z.null(),
  permission: ALLOCATE,
});

export const deletePoolByParam = endpoint({ ...deletePool, path: '/pools' });
