import { z } from 'zod';
import type { Check } from '../../http/endpoint.js';
import { configIdParam, stringParam } from '../../http/params.js';

/*
 * What the HA endpoints share (PVE's `/cluster/ha`; docs/ha.md): their permissions,
 * as PVE's schema has them, and the resource id `sid`.
 */

export const MAY_AUDIT: Check = { kind: 'privileges', path: '/', privileges: ['Sys.Audit'] };
/** PVE asks Sys.Console on `/` for every HA configuration change. */
export const MAY_CONFIGURE: Check = { kind: 'privileges', path: '/', privileges: ['Sys.Console'] };

/** PVE's HA resource types: `vm` for a VM, `ct` for a container. */
export type HaResourceType = 'vm' | 'ct';

/** A sid as given: `vm:100`, `ct:100`, or the bare vmid (its type is then the guest's), as PVE accepts. */
export interface GivenSid {
  readonly type: HaResourceType | undefined;
  readonly vmid: number;
}

const SID = /^(?:(vm|ct):)?([1-9]\d{2,8})$/;

export const sidParam = (description = 'The HA resource: `vm:<vmid>`, `ct:<vmid>`, or the vmid alone.') =>
  stringParam({ description, pattern: SID, patternHint: 'must be vm:<vmid>, ct:<vmid> or <vmid> (vmid 100 to 999999999)' });

/** A sid that matched sidParam's pattern. */
export function parseSid(text: string): GivenSid {
  const match = SID.exec(text);
  if (!match) throw new Error(`not a sid: ${text}`);
  return { type: match[1] as HaResourceType | undefined, vmid: Number(match[2]) };
}

export const resourceTypeParam = (description: string) =>
  z.enum(['vm', 'ct'], { error: (issue) => `expected vm or ct, got '${String(issue.input)}'` }).meta({ description });

/** PVE's `pve-configid`, the form of a group's name. */
export const groupNameParam = configIdParam;
