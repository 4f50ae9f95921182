import { guestAgentOptions } from '../../qga-config.js';

/**
 * The guest agent's channel as PVE gives it to a VM whose config has `agent: 1` (`enabled=1`):
 * a unix socket QEMU listens on (`socket`: its path, commas already doubled), the VM's end a
 * virtio-serial port named `org.qemu.guest_agent.0` (`type=virtio`, the default) or an ISA serial
 * port (`type=isa`).
 */
export function guestAgentArgs(agent: string | undefined, socket: string): string[] {
  const options = guestAgentOptions(agent);
  if (!options.enabled) return [];
  const chardev = ['-chardev', `socket,path=${socket},server=on,wait=off,id=qga0`];
  if (options.type === 'isa') return [...chardev, '-device', 'isa-serial,chardev=qga0'];
  return [...chardev, '-device', 'virtio-serial,id=qga0', '-device', 'virtserialport,chardev=qga0,name=org.qemu.guest_agent.0'];
}
