/**
 * Sizes as PVE writes them: `512M`, `1.5T`, `4096K`, and a bare number, which is bytes in a
 * `size=` option (PVE's disk-size format: `size=34359738368` is `size=32G`) and GiB in a new
 * volume's `<storage>:<size>`.
 */

const UNITS = { B: 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 } as const;
const SIZE = /^(\d+(?:\.\d+)?)([KMGT])?$/;

/** Bytes of a size text, whole bytes; null when it is not one. `unit` is the unit of a bare number. */
export function parseSize(text: string, unit: keyof typeof UNITS = 'B'): number | null {
  const match = SIZE.exec(text);
  if (!match) return null;
  const [, amount = '', suffix] = match;
  const bytes = Number(amount) * UNITS[(suffix as keyof typeof UNITS | undefined) ?? unit];
  return Number.isSafeInteger(Math.round(bytes)) ? Math.round(bytes) : null;
}

/** The largest unit that divides the size exactly: `34359738368` is `32G`, PVE's `size=` text. */
export function formatSize(bytes: number): string {
  for (const unit of ['T', 'G', 'M', 'K'] as const) {
    if (bytes % UNITS[unit] === 0 && bytes >= UNITS[unit]) return `${bytes / UNITS[unit]}${unit}`;
  }
  return String(bytes);
}
