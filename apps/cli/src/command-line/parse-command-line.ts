import type { ApiCall } from '../http/api-call.js';
import type { Command } from './command.js';
import { commandHelp, commandsHelp } from './help.js';
import { UsageError } from './usage-error.js';

export type Invocation = { readonly kind: 'help'; readonly text: string } | { readonly kind: 'call'; readonly command: Command; readonly call: ApiCall };

const isHelp = (arg: string) => arg === '--help' || arg === '-h';

/** What the command line asks for: some help, or one API call; a UsageError says what is wrong with it. */
export function parseCommandLine(argv: readonly string[], commands: readonly Command[]): Invocation {
  const [first] = argv;
  if (first === undefined) throw new UsageError('missing command');
  if (isHelp(first)) return { kind: 'help', text: commandsHelp(commands) };
  const command = commands.find((candidate) => candidate.name.split(' ').every((word, index) => argv[index] === word));
  if (command === undefined) return groupHelp(argv, commands);
  const args = argv.slice(command.name.split(' ').length);
  if (args.some(isHelp)) return { kind: 'help', text: commandHelp(command) };
  try {
    return { kind: 'call', command, call: command.toCall(args) };
  } catch (error) {
    throw error instanceof UsageError ? new UsageError(`${command.name}: ${error.message}`, `Run 'corral ${command.name} --help' for its usage.`) : error;
  }
}

/** `corral token --help` lists the token commands; `corral token` or `corral token frob` is a usage error. */
function groupHelp(argv: readonly string[], commands: readonly Command[]): Invocation {
  const [group, second] = argv as [string, ...string[]];
  const members = commands.filter((command) => command.name.startsWith(`${group} `));
  if (members.length === 0) throw new UsageError(`unknown command '${group}'`);
  if (second !== undefined && isHelp(second)) return { kind: 'help', text: commandsHelp(members) };
  const choices = members.map((command) => command.name.slice(group.length + 1)).join(', ');
  const problem = second === undefined ? 'missing subcommand' : `unknown subcommand '${second}'`;
  throw new UsageError(`${group}: ${problem}; one of ${choices}`, `Run 'corral ${group} --help' for its commands.`);
}
