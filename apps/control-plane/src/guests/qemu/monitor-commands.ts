/**
 * The human-monitor commands `.../monitor` runs (PVE's rule: `info *` and `help` need Sys.Audit
 * on the VM, anything else Sys.Modify). Corral runs only the commands listed here, so a monitor
 * call cannot reach QEMU's commands that touch the host (`migrate`, `drive_add`, `dump-guest-memory`, ...).
 */
export const READ_ONLY_MONITOR_COMMANDS = [
  'help',
  'info balloon',
  'info block',
  'info blockstats',
  'info chardev',
  'info cpus',
  'info kvm',
  'info migrate',
  'info mtree',
  'info name',
  'info network',
  'info pci',
  'info qtree',
  'info status',
  'info uuid',
  'info version',
  'info vnc',
] as const;

/** Commands that change the VM, with Sys.Modify: the power buttons and key presses. */
export const MODIFYING_MONITOR_COMMANDS = ['stop', 'cont', 'system_reset', 'system_powerdown', 'sendkey <keys>'] as const;

const SENDKEY = /^sendkey [a-z0-9_]+(?:-[a-z0-9_]+)*$/;

/** `read-only`, `modifying`, or null for a command Corral does not run. */
export function monitorCommandKind(command: string): 'read-only' | 'modifying' | null {
  const normal = command.trim().replace(/\s+/g, ' ');
  if ((READ_ONLY_MONITOR_COMMANDS as readonly string[]).includes(normal)) return 'read-only';
  if ((MODIFYING_MONITOR_COMMANDS as readonly string[]).includes(normal) || SENDKEY.test(normal)) return 'modifying';
  return null;
}
