import type { ApiCall } from '../http/api-call.js';
import type { ApiClient } from '../http/api-client.js';
import type { Output } from './output.js';
import { readArguments } from './read-arguments.js';
import { UsageError } from './usage-error.js';

export interface OptionHelp {
  readonly name: string;
  /** What the value looks like: `YYYY-MM-DD`, `0|1`; empty for a flag, which takes no value. */
  readonly value: string;
  readonly description: string;
}

interface CommandHelp {
  /** The words that name it: `token create`. */
  readonly name: string;
  /** Its positional arguments for the usage line: `<userid> <tokenid>`. */
  readonly arguments: string;
  readonly summary: string;
  readonly options: readonly OptionHelp[];
  /** Said on stderr after it succeeded. */
  readonly notice?: string;
}

/** A `corral` command that stands for one API call. */
export interface ApiCommand extends CommandHelp {
  /** The call for the arguments after the command's name; a UsageError when they are wrong. */
  toCall(args: readonly string[]): ApiCall;
}

/** The API with the session's credentials, for a command that makes several calls. */
export interface ApiSession {
  /** The call's `data`; an ApiFailure or ConnectionFailure when it fails. */
  send(call: ApiCall): Promise<unknown>;
}

/** What a command that works on this machine gets besides its arguments. */
export interface LocalContext {
  readonly output: Output;
  /** The path of the agent's entry point (`@corral/agent/main`): the CLI runs the agent, it never imports its code. */
  readonly agentMain: () => string;
  /** Connects to the API as an API command does (CORRAL_URL and the credentials of the environment), for a command that makes several calls. */
  readonly api: () => Promise<ApiSession>;
}

/** The work of a local command, resolving to the exit code. */
export type LocalTask = (context: LocalContext) => Promise<number>;

/** A `corral` command that works on this machine (joining it as a node, installing the agent's service). */
export interface LocalCommand extends CommandHelp {
  /** The work for the arguments after the command's name; a UsageError when they are wrong. */
  toTask(args: readonly string[]): LocalTask;
}

/** What a command that stays connected to the API gets besides its arguments. */
export interface FollowContext {
  readonly output: Output;
  readonly client: ApiClient;
  /** The credentials of a GET. */
  readonly headers: Readonly<Record<string, string>>;
}

/** The work of a command that follows the API as things happen, resolving to the exit code (an ApiFailure or ConnectionFailure ends it as a call's would). */
export type FollowTask = (context: FollowContext) => Promise<number>;

/** A `corral` command that follows the API for as long as it runs (`events listen`). */
export interface FollowCommand extends CommandHelp {
  toFollow(args: readonly string[]): FollowTask;
}

export type Command = ApiCommand | LocalCommand | FollowCommand;

type Arguments<P extends string, O extends string> = Readonly<Record<P, string> & Partial<Record<O, string>>>;

interface Definition<P extends string, O extends string> {
  readonly name: string;
  readonly summary: string;
  readonly positionals: readonly P[];
  /** An option with an empty `value` is a flag: given, it reads '1'. */
  readonly options: Readonly<Record<O, Omit<OptionHelp, 'name'>>>;
  readonly notice?: string;
}

/** A command with fixed positional arguments, `--name value` options and flags, each given at most once. */
export function defineCommand<P extends string, O extends string = never>(
  definition: Definition<P, O> & { readonly call: (args: Arguments<P, O>) => ApiCall },
): ApiCommand {
  return { ...help(definition), toCall: (args) => definition.call(named(definition, args)) };
}

/** The same for a command that works on this machine. */
export function defineLocalCommand<P extends string, O extends string = never>(
  definition: Definition<P, O> & { readonly task: (args: Arguments<P, O>) => LocalTask },
): LocalCommand {
  return { ...help(definition), toTask: (args) => definition.task(named(definition, args)) };
}

/** The same for a command that follows the API. */
export function defineFollowCommand<P extends string, O extends string = never>(
  definition: Definition<P, O> & { readonly follow: (args: Arguments<P, O>) => FollowTask },
): FollowCommand {
  return { ...help(definition), toFollow: (args) => definition.follow(named(definition, args)) };
}

function help<P extends string, O extends string>(definition: Definition<P, O>): CommandHelp {
  const optionNames = Object.keys(definition.options) as O[];
  return {
    name: definition.name,
    arguments: definition.positionals.map((name) => `<${name}>`).join(' '),
    summary: definition.summary,
    options: optionNames.map((name) => ({ name, ...definition.options[name] })),
    ...(definition.notice === undefined ? {} : { notice: definition.notice }),
  };
}

function named<P extends string, O extends string>(definition: Definition<P, O>, args: readonly string[]): Arguments<P, O> {
  const optionNames = Object.keys(definition.options) as O[];
  const flagNames = optionNames.filter((name) => definition.options[name].value === '');
  const { positionals, options } = readArguments(args, optionNames, flagNames);
  const missing = definition.positionals[positionals.length];
  if (missing !== undefined) throw new UsageError(`missing <${missing}>`);
  const extra = positionals[definition.positionals.length];
  if (extra !== undefined) throw new UsageError(`unexpected argument '${extra}'`);
  const values = Object.fromEntries(definition.positionals.map((name, index) => [name, positionals[index]]));
  return { ...options, ...values } as Arguments<P, O>;
}
