import { COMMANDS, type CommandName, type ParamsOf } from '@corral/protocol';
import { ApiError, type ParamProblem } from '../errors/api-error.js';

/**
 * Checks what an endpoint will send to the agent against the command's own schema, before anything
 * is sent or a task starts: a value the agent would refuse is a 400 naming the API's parameter.
 * `paramOf` maps a command field (the first segment of an issue's path, and its index for lists)
 * to the parameter the caller sent.
 */
export function commandParams<K extends CommandName>(
  command: K,
  params: Readonly<Record<string, unknown>>,
  paramOf: (path: readonly PropertyKey[]) => string,
): ParamsOf<K> {
  // Absent optional parameters arrive as undefined, which JSON (and so a frame) cannot hold.
  const defined = Object.fromEntries(Object.entries(params).filter(([, value]) => value !== undefined));
  const parsed = COMMANDS[command].params.safeParse(defined);
  if (parsed.success) return parsed.data as ParamsOf<K>;
  const problems: ParamProblem[] = parsed.error.issues.map((issue) => ({ param: paramOf(issue.path), message: issue.message }));
  const [first, ...rest] = problems;
  if (!first) throw new Error(`${command}: refused without an issue`);
  throw ApiError.invalidParams([first, ...rest]);
}

/** The usual mapping: a command field is the parameter of the same name (with `-` or `_` as the API spells it). */
export const sameName =
  (renames: Readonly<Record<string, string>> = {}) =>
  (path: readonly PropertyKey[]): string => {
    const field = String(path[0] ?? '');
    return renames[field] ?? field;
  };
