import { parseProperties } from '@corral/pve-formats';

/** Whether a VM's config enables the QEMU guest agent (`agent: 1`, `enabled=1,type=virtio`). */
export function guestAgentEnabled(config: Readonly<Record<string, string>>): boolean {
  const agent = config['agent'];
  return agent !== undefined && parseProperties(agent, { defaultKey: 'enabled' }).get('enabled') === '1';
}
