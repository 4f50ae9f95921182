import { ENVIRONMENT } from '../environment/environment.js';
import type { Command } from './command.js';

const HELP_OPTION = { name: 'help', value: '', description: 'this help' };

/** `corral --help`, or `corral token --help` for the commands of one group. */
export function commandsHelp(commands: readonly Command[]): string {
  return [
    'Usage: corral <command> [arguments] [options]',
    '',
    'A command-line client for the Corral API, in the spirit of pvesh. It prints the data of the',
    "answer as JSON on stdout and errors on stderr as 'corral: <status> <message>'; it exits with 1",
    'when the API refuses and 2 on a usage error.',
    '',
    'Commands:',
    ...table(commands.map((command) => [`${command.name} ${command.arguments}`, command.summary])),
    '',
    'Environment:',
    ...table(ENVIRONMENT),
    '',
    "Run 'corral <command> --help' for its options.",
  ].join('\n');
}

export function commandHelp(command: Command): string {
  const options = [...command.options, HELP_OPTION];
  return [
    `Usage: corral ${command.name} ${command.arguments} [options]`,
    '',
    `${command.summary}.`,
    '',
    'Options:',
    ...table(options.map((option) => [`--${option.name} ${option.value}`.trim(), option.description])),
    // A local command takes what it needs as arguments.
    ...('toTask' in command ? [] : ['', "Credentials and the control plane's address come from the environment: see 'corral --help'."]),
  ].join('\n');
}

function table(rows: readonly (readonly [string, string])[]): string[] {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`);
}
