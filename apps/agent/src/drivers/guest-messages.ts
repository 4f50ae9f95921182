import type { GuestType } from '@corral/protocol';
import { CommandFailure } from '../commands/command-failure.js';

/** How PVE names a guest in its messages: `VM 100`, `CT 200`. */
export function guestLabel(type: GuestType, vmid: number): string {
  return `${type === 'qemu' ? 'VM' : 'CT'} ${vmid}`;
}

/** `reset` and `monitor` name no guest type: asked of a container, the answer says why not, rather than "VM 200 is not running". */
export function containersHaveNo(what: 'reset' | 'monitor', vmid: number): CommandFailure {
  return new CommandFailure('invalid-params', `CT ${vmid} is a container: containers have no ${what}`);
}
