import { LXC, QEMU, type GuestKind } from '../../../guests/guest-kinds.js';

/** PVE's HA resource id: `vm:100`, `ct:100`. */
export function sidOf(resource: { readonly type: 'vm' | 'ct'; readonly vmid: number }): string {
  return `${resource.type}:${resource.vmid}`;
}

/** The guest kind of an HA resource type. */
export function kindOfResource(type: 'vm' | 'ct'): GuestKind {
  return type === 'vm' ? QEMU : LXC;
}
