import type { ApiCall } from '../http/api-call.js';
import type { ApiCommand, Command, FollowCommand, FollowTask, LocalCommand, LocalTask } from './command.js';
import { commandHelp, commandsHelp } from './help.js';
import { UsageError } from './usage-error.js';

export type Invocation =
  | { readonly kind: 'help'; readonly text: string }
  | { readonly kind: 'call'; readonly command: ApiCommand; readonly call: ApiCall }
  | { readonly kind: 'task'; readonly command: LocalCommand; readonly task: LocalTask }
  | { readonly kind: 'follow'; readonly command: FollowCommand; readonly follow: FollowTask };

const isHelp = (arg: string) => arg === '--help' || arg === '-h';
const wordsOf = (command: Command) => command.name.split(' ');

/** What the command line asks for: some help, one API call, a local task or one that follows the API; a UsageError says what is wrong with it. */
export function parseCommandLine(argv: readonly string[], commands: readonly Command[]): Invocation {
  const [first] = argv;
  if (first === undefined) throw new UsageError('missing command');
  if (isHelp(first)) return { kind: 'help', text: commandsHelp(commands) };
  const command = commands.find((candidate) => wordsOf(candidate).every((word, index) => argv[index] === word));
  if (command === undefined) return groupHelp(argv, commands);
  const args = argv.slice(wordsOf(command).length);
  if (args.some(isHelp)) return { kind: 'help', text: commandHelp(command) };
  try {
    if ('toCall' in command) return { kind: 'call', command, call: command.toCall(args) };
    return 'toTask' in command
      ? { kind: 'task', command, task: command.toTask(args) }
      : { kind: 'follow', command, follow: command.toFollow(args) };
  } catch (error) {
    throw error instanceof UsageError
      ? new UsageError(`${command.name}: ${error.message}`, `Run 'corral ${command.name} --help' for its usage.`)
      : error;
  }
}

/**
 * `corral token --help` (or `corral cluster join-token --help`) lists the commands of a group;
 * `corral token` or `corral token frob` is a usage error naming the group's commands.
 */
function groupHelp(argv: readonly string[], commands: readonly Command[]): Invocation {
  // The group: the most leading words that some commands share with the command line.
  let depth = 0;
  while (
    commands.some(
      (command) =>
        wordsOf(command).length > depth + 1 &&
        wordsOf(command)
          .slice(0, depth + 1)
          .every((word, index) => argv[index] === word),
    )
  )
    depth += 1;
  const group = argv.slice(0, depth).join(' ');
  if (depth === 0) throw new UsageError(`unknown command '${argv[0]}'`);
  const members = commands.filter((command) => command.name.startsWith(`${group} `));
  const next = argv[depth];
  if (next !== undefined && isHelp(next)) return { kind: 'help', text: commandsHelp(members) };
  const choices = members.map((command) => command.name.slice(group.length + 1)).join(', ');
  const problem = next === undefined ? 'missing subcommand' : `unknown subcommand '${next}'`;
  throw new UsageError(`${group}: ${problem}; one of ${choices}`, `Run 'corral ${group} --help' for its commands.`);
}
