import { propertyItems } from '../../property-items.js';

/**
 * The QEMU arguments of a VM's config keys beyond its disks and cards, as PVE writes them: the
 * keyboard layout, a watchdog, a random number generator, the clock, reboot and `args`. Devices of
 * the host (PCI, USB, shared directories, memory encryption) and hook scripts are what only the
 * `pve` driver gives: a VM that asks for one does not start here, and says why. What the native
 * driver leaves to QEMU's defaults is a note in the task log.
 */

/** Keys whose absence is harmless for a test VM, but which the native driver does not apply. */
const NOT_APPLIED = /^(?:affinity|hugepages|keephugepages|numa\d+|audio0|spice_enhancements|allow-ksm|vmstatestorage)$/;

/** Keys the native driver cannot give a VM, with why. */
const REFUSED: readonly (readonly [RegExp, string])[] = [
  [/^hostpci\d+$/, 'host PCI devices are passed through by the pve driver only'],
  [/^usb\d+$/, 'USB devices are passed through by the pve driver only'],
  [/^virtiofs\d+$/, 'virtiofs directories are shared by the pve driver only'],
  [/^parallel\d+$/, 'parallel ports are passed through by the pve driver only'],
  [/^(?:ivshmem|amd-sev|intel-tdx)$/, 'shared memory and memory encryption are set up by the pve driver only'],
  [/^hookscript$/, 'the native driver does not run hook scripts yet'],
];

export interface DeviceOptions {
  readonly args: string[];
  readonly notes: string[];
  /** Keep the CPU stopped after the start (`freeze`): the monitor's `c` lets it run. */
  readonly frozen: boolean;
}

export function deviceOptions(vmid: number, config: Readonly<Record<string, string>>): DeviceOptions {
  for (const key of Object.keys(config)) {
    const refused = REFUSED.find(([pattern]) => pattern.test(key));
    if (refused !== undefined) throw new Error(`VM ${vmid} cannot start on the native driver with ${key}: ${refused[1]}`);
  }
  const notes = Object.keys(config)
    .filter((key) => NOT_APPLIED.test(key))
    .map((key) => `${key}: not applied (the native driver leaves it to QEMU's defaults)`);
  const args = [
    ...(config['keyboard'] !== undefined ? ['-k', config['keyboard']] : []),
    ...watchdog(config['watchdog']),
    ...rng(config['rng0']),
    ...clock(config),
    ...(config['reboot'] === '0' ? ['-no-reboot'] : []),
    ...(config['args'] !== undefined ? splitArgs(config['args']) : []),
  ];
  return { args, notes, frozen: config['freeze'] === '1' };
}

function watchdog(value: string | undefined): string[] {
  if (value === undefined) return [];
  const options = propertyItems(value, 'model');
  return ['-device', options.get('model') ?? 'i6300esb', '-action', `watchdog=${options.get('action') ?? 'reset'}`];
}

function rng(value: string | undefined): string[] {
  if (value === undefined) return [];
  const options = propertyItems(value, 'source');
  const limits = [
    ...(options.has('max_bytes') ? [`max-bytes=${options.get('max_bytes')}`] : []),
    ...(options.has('period') ? [`period=${options.get('period')}`] : []),
  ];
  return [
    '-object',
    `rng-random,filename=${options.get('source') ?? '/dev/urandom'},id=rng0`,
    '-device',
    ['virtio-rng-pci', 'rng=rng0', ...limits].join(','),
  ];
}

/** PVE's `-rtc`: `base` from `startdate` (or local time), `driftfix=slew` with `tdf`. */
function clock(config: Readonly<Record<string, string>>): string[] {
  const start = config['startdate'];
  const base = start !== undefined && start !== 'now' ? start : config['localtime'] === '1' ? 'localtime' : undefined;
  const parts = [...(base !== undefined ? [`base=${base}`] : []), ...(config['tdf'] === '1' ? ['driftfix=slew'] : [])];
  return parts.length === 0 ? [] : ['-rtc', parts.join(',')];
}

/** `args` split into words as PVE splits them: on white space, with single and double quotes and backslash escapes. */
export function splitArgs(text: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (quote === undefined && /\s/.test(char)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (quote === undefined && (char === '"' || char === "'")) {
      quote = char;
      word ??= '';
    } else if (char === quote) {
      quote = undefined;
    } else if (char === '\\' && quote !== "'" && i + 1 < text.length) {
      word = (word ?? '') + text[++i];
    } else {
      word = (word ?? '') + char;
    }
  }
  if (quote !== undefined) throw new Error(`args has an unclosed ${quote} quote`);
  if (word !== undefined) words.push(word);
  return words;
}
