import { findProgram } from './find-program.js';

/** Each capability `hello` may name, and the program whose presence grants it. */
const CAPABILITY_PROGRAMS = {
  nft: 'nft',
  lvm: 'vgs',
  zfs: 'zpool',
  sgdisk: 'sgdisk',
  ifreload: 'ifreload',
  apt: 'apt-get',
  smartctl: 'smartctl',
} as const;

/** Optional host tools found on PATH, as hello.capabilities names: 'nft', 'lvm', 'zfs', 'sgdisk', 'ifreload', 'apt', 'smartctl'. */
export async function detectCapabilities(): Promise<string[]> {
  const found = await Promise.all(
    Object.entries(CAPABILITY_PROGRAMS).map(async ([capability, program]) =>
      (await findProgram(program)) === undefined ? [] : [capability],
    ),
  );
  return found.flat();
}
