import { propertyItems } from './property-items.js';

/** A VM config's `agent` property string (`1`, `enabled=1,type=isa`, `0,fstrim_cloned_disks=1`): whether the guest agent is enabled, and its channel's type. */
export function guestAgentOptions(agent: string | undefined): { enabled: boolean; type: string } {
  const items = propertyItems(agent ?? '', 'enabled');
  return { enabled: ['1', 'on', 'yes', 'true'].includes(items.get('enabled') ?? ''), type: items.get('type') ?? 'virtio' };
}
