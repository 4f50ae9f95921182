/** The counting retention options, in the order PVE applies them (pve-storage `prune_mark_backup_group`). */
export const KEEP_RULES = ['keep-last', 'keep-hourly', 'keep-daily', 'keep-weekly', 'keep-monthly', 'keep-yearly'] as const;
export type KeepRule = (typeof KEEP_RULES)[number];

/**
 * PVE's `prune-backups` retention options: a storage's, a backup job's or one prune call's. Each
 * count is a whole number of 0 or more (0 is the same as absent, as in PVE's schema); `keep-all`
 * contradicts any count above 0. No count above 0 at all keeps every backup.
 */
export type PruneOptions = { readonly 'keep-all'?: boolean } & { readonly [rule in KeepRule]?: number };

/** A `prune-backups` value that cannot be used; `option` names the offending item. */
export class PruneOptionsError extends Error {
  constructor(
    readonly option: string,
    message: string,
  ) {
    super(message);
    this.name = 'PruneOptionsError';
  }
}

const notACount = (rule: KeepRule, value: string) =>
  new PruneOptionsError(rule, `${rule} must be a whole number of 0 or more, not '${value}'`);

const isKeepRule = (key: string): key is KeepRule => (KEEP_RULES as readonly string[]).includes(key);

// PVE's boolean spellings (JSONSchema `parse_boolean`).
const BOOLEANS = new Map([
  ...['1', 'on', 'yes', 'true'].map((v) => [v, true] as const),
  ...['0', 'off', 'no', 'false'].map((v) => [v, false] as const),
]);

/** Parses the property string (`keep-last=3,keep-daily=7`), rejecting what PVE rejects. */
export function parsePruneOptions(text: string): PruneOptions {
  const options: { 'keep-all'?: boolean } & { [rule in KeepRule]?: number } = {};
  for (const item of text.split(',').map((part) => part.trim())) {
    if (item === '') continue;
    const [key = '', value] = item.split(/=(.*)/s);
    if (key !== 'keep-all' && !isKeepRule(key)) throw new PruneOptionsError(key, `unknown retention option '${key}'`);
    if (options[key] !== undefined) throw new PruneOptionsError(key, `${key} is given twice`);
    if (key === 'keep-all') {
      const flag = BOOLEANS.get((value ?? '').toLowerCase());
      if (flag === undefined) throw new PruneOptionsError(key, `keep-all must be 0 or 1, not '${value ?? ''}'`);
      options[key] = flag;
    } else {
      if (!/^\d+$/.test(value ?? '')) throw notACount(key, value ?? '');
      options[key] = Number(value);
    }
  }
  return validatePruneOptions(options);
}

/** Checks counts and the keep-all contradiction (PVE's `validate_prune_backups`); returns the options unchanged. */
export function validatePruneOptions(options: PruneOptions): PruneOptions {
  for (const rule of KEEP_RULES) {
    const count = options[rule];
    if (count !== undefined && !(Number.isSafeInteger(count) && count >= 0)) throw notACount(rule, String(count));
  }
  const counting = KEEP_RULES.filter((rule) => (options[rule] ?? 0) > 0);
  if (options['keep-all'] === true && counting.length > 0) {
    throw new PruneOptionsError('keep-all', `keep-all cannot be combined with ${counting.join(', ')}`);
  }
  return options;
}

/** The property string, keys sorted as PVE prints them; `{}` gives ''. */
export function formatPruneOptions(options: PruneOptions): string {
  const items: string[] = [];
  if (options['keep-all'] !== undefined) items.push(`keep-all=${options['keep-all'] ? 1 : 0}`);
  for (const rule of KEEP_RULES) {
    const count = options[rule];
    if (count !== undefined) items.push(`${rule}=${count}`);
  }
  return items.sort().join(',');
}

/** Whether the options keep every backup: keep-all, or no count above 0. */
export function keepsEverything(options: PruneOptions): boolean {
  return options['keep-all'] === true || KEEP_RULES.every((rule) => (options[rule] ?? 0) === 0);
}
