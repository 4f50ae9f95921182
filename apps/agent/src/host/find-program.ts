import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { CommandFailure } from './command-failure.js';

/** The Debian package of each optional tool, so "not installed" says what to install. */
const DEBIAN_PACKAGES: Readonly<Record<string, string>> = {
  nft: 'nftables',
  sgdisk: 'gdisk',
  vgs: 'lvm2',
  zpool: 'zfsutils-linux',
  ifreload: 'ifupdown2',
  smartctl: 'smartmontools',
  udevadm: 'udev',
  swtpm: 'swtpm',
  swtpm_setup: 'swtpm-tools',
};

/**
 * Where `name` is on the agent's PATH, the same search `runProgram` makes when it starts it; for
 * tools a command uses only where present (zpool, smartctl) and for `hello.capabilities`.
 */
export async function findProgram(name: string): Promise<string | undefined> {
  for (const directory of (process.env['PATH'] ?? '').split(delimiter)) {
    if (directory === '') continue;
    const candidate = join(directory, name);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** The failure for a host tool that is not installed: `unavailable`, naming the tool and its package. */
export function programMissing(name: string): CommandFailure {
  const hint = DEBIAN_PACKAGES[name] === undefined ? '' : ` (Debian package ${DEBIAN_PACKAGES[name]})`;
  return new CommandFailure('unavailable', `${name} is not installed on this host${hint}`);
}
