/** A VM config's `agent` property string (`1`, `enabled=1,type=isa`, `0,fstrim_cloned_disks=1`): whether the guest agent is enabled, and its channel's type. */
export function guestAgentOptions(agent: string | undefined): { enabled: boolean; type: string } {
  let enabled = false;
  let type = 'virtio';
  for (const [index, item] of (agent ?? '').split(',').entries()) {
    const equals = item.indexOf('=');
    const [key, value] = equals < 0 && index === 0 ? ['enabled', item] : [item.slice(0, equals), item.slice(equals + 1)];
    if (key === 'enabled') enabled = ['1', 'on', 'yes', 'true'].includes(value);
    if (key === 'type') type = value;
  }
  return { enabled, type };
}
