import type { ApiCommand } from '../command-line/command.js';
import { UsageError } from '../command-line/usage-error.js';

const OPTION = /^--([^=]+)(?:=(.*))?$/s;

/** pvesh's `get`: any API path, its parameters as free `--key value` options (a key given twice is a list). */
export const GET_COMMAND: ApiCommand = {
  name: 'get',
  arguments: '<api path>',
  summary: "Read any API path (as pvesh get), e.g. 'corral get /access/users --full 1'",
  options: [{ name: 'KEY', value: 'VALUE', description: 'a parameter of the call; repeat the key for a list' }],
  toCall(args) {
    let path: string | undefined;
    const params: Record<string, string[]> = {};
    for (let i = 0; i < args.length; i++) {
      const arg = args[i] as string;
      const [, key, inline] = OPTION.exec(arg) ?? [];
      if (key === undefined) {
        if (path !== undefined) throw new UsageError(`unexpected argument '${arg}'`);
        path = arg;
        continue;
      }
      const value = inline ?? args[++i];
      if (value === undefined) throw new UsageError(`--${key} needs a value`);
      (params[key] ??= []).push(value);
    }
    if (path === undefined) throw new UsageError('missing <api path>');
    if (!path.startsWith('/') || /[?#]/.test(path))
      throw new UsageError(`the API path is like /access/users, with parameters as --key value: not '${path}'`);
    const single = Object.entries(params).map(([key, values]) => [key, values.length === 1 ? values[0] : values]);
    return { method: 'GET', path, params: Object.fromEntries(single) };
  },
};
