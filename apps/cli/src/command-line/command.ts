import type { ApiCall } from '../http/api-call.js';
import { readArguments } from './read-arguments.js';
import { UsageError } from './usage-error.js';

export interface OptionHelp {
  readonly name: string;
  /** What the value looks like: `YYYY-MM-DD`, `0|1`. */
  readonly value: string;
  readonly description: string;
}

/** One `corral` command: its help, and the API call its arguments stand for. */
export interface Command {
  /** The words that name it: `token create`. */
  readonly name: string;
  /** Its positional arguments for the usage line: `<userid> <tokenid>`. */
  readonly arguments: string;
  readonly summary: string;
  readonly options: readonly OptionHelp[];
  /** Said on stderr after it succeeded. */
  readonly notice?: string;
  /** The call for the arguments after the command's name; a UsageError when they are wrong. */
  toCall(args: readonly string[]): ApiCall;
}

interface Definition<P extends string, O extends string> {
  readonly name: string;
  readonly summary: string;
  readonly positionals: readonly P[];
  readonly options: Readonly<Record<O, Omit<OptionHelp, 'name'>>>;
  readonly notice?: string;
  readonly call: (args: Readonly<Record<P, string> & Partial<Record<O, string>>>) => ApiCall;
}

/** A command with fixed positional arguments and `--name value` options, each given at most once. */
export function defineCommand<P extends string, O extends string = never>(definition: Definition<P, O>): Command {
  const optionNames = Object.keys(definition.options) as O[];
  return {
    name: definition.name,
    arguments: definition.positionals.map((name) => `<${name}>`).join(' '),
    summary: definition.summary,
    options: optionNames.map((name) => ({ name, ...definition.options[name] })),
    ...(definition.notice === undefined ? {} : { notice: definition.notice }),
    toCall(args) {
      const { positionals, options } = readArguments(args, optionNames);
      const missing = definition.positionals[positionals.length];
      if (missing !== undefined) throw new UsageError(`missing <${missing}>`);
      const extra = positionals[definition.positionals.length];
      if (extra !== undefined) throw new UsageError(`unexpected argument '${extra}'`);
      const named = Object.fromEntries(definition.positionals.map((name, index) => [name, positionals[index]]));
      return definition.call({ ...options, ...named } as Record<P, string> & Partial<Record<O, string>>);
    },
  };
}
