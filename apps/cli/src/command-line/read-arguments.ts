import { parseArgs } from 'node:util';
import { UsageError } from './usage-error.js';

/**
 * Splits a command's arguments into positionals and `--name value` (or `--name=value`) options;
 * a flag (`--replace`) takes no value and reads '1'. parseArgs runs non-strict so that every
 * mistake gets one plain message of ours.
 */
export function readArguments<O extends string>(
  args: readonly string[],
  optionNames: readonly O[],
  flagNames: readonly O[] = [],
): { positionals: string[]; options: Partial<Record<O, string>> } {
  const { tokens } = parseArgs({
    args: [...args],
    options: Object.fromEntries(
      optionNames.map((name) => [name, { type: flagNames.includes(name) ? ('boolean' as const) : ('string' as const) }]),
    ),
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const positionals: string[] = [];
  const options: Partial<Record<O, string>> = {};
  for (const token of tokens) {
    if (token.kind === 'positional') positionals.push(token.value);
    if (token.kind !== 'option') continue;
    const name = optionNames.find((known) => known === token.name);
    if (name === undefined) throw new UsageError(`unknown option '${token.rawName}'`);
    if (options[name] !== undefined) throw new UsageError(`${token.rawName} is given more than once`);
    if (flagNames.includes(name)) {
      if (token.inlineValue) throw new UsageError(`${token.rawName} takes no value`);
      options[name] = '1';
      continue;
    }
    // `--comment --privsep 1` would take `--privsep` as the comment: a value starting with '-' must be inline.
    if (token.value === undefined || (!token.inlineValue && token.value.startsWith('-'))) {
      throw new UsageError(`${token.rawName} needs a value (one starting with '-' as ${token.rawName}=-value)`);
    }
    options[name] = token.value;
  }
  return { positionals, options };
}
