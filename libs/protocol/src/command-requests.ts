import type { z } from 'zod';
import {
  COMMANDS,
  isCommandName,
  type CommandHandlers,
  type CommandName,
  type CommandRequest,
  type ParamsOf,
  type ResultOf,
} from './catalog.js';
import type { RequestFrame } from './frames/request.js';
import { describeIssues } from './issues.js';

// The catalog seen per command name, which lets TypeScript pair a name with its own schemas below.
const schemas: { readonly [K in CommandName]: { readonly params: z.ZodType<ParamsOf<K>>; readonly result: z.ZodType<ResultOf<K>> } } =
  COMMANDS;

/**
 * The agent's check of a request frame's command and parameters against the catalog. A refusal
 * carries the failure code and message to answer with, so the agent replies with a `failure` frame
 * and keeps the connection.
 */
export type CommandRequestParse<K extends CommandName = CommandName> =
  | { readonly ok: true; readonly request: CommandRequest<K> }
  | { readonly ok: false; readonly code: 'unknown-command' | 'invalid-params'; readonly message: string };

export function parseCommandRequest(frame: Pick<RequestFrame, 'command'> & { readonly params: unknown }): CommandRequestParse {
  if (!isCommandName(frame.command)) return { ok: false, code: 'unknown-command', message: `unknown command '${frame.command}'` };
  return checkParams(frame.command, frame.params);
}

function checkParams<K extends CommandName>(command: K, params: unknown): CommandRequestParse<K> {
  const parsed = schemas[command].params.safeParse(params);
  if (!parsed.success) return { ok: false, code: 'invalid-params', message: `${command}: ${describeIssues(parsed.error, 'params')}` };
  const request: CommandRequest<K> = { command, params: parsed.data };
  return { ok: true, request };
}

/**
 * The control plane's check of a `result` frame against the command it asked for (the frame
 * carries only the request id). A refusal ends the request with the message.
 */
export type CommandResultParse<K extends CommandName> =
  { readonly ok: true; readonly result: ResultOf<K> } | { readonly ok: false; readonly message: string };

export function parseCommandResult<K extends CommandName>(command: K, result: unknown): CommandResultParse<K> {
  const parsed = schemas[command].result.safeParse(result);
  return parsed.success
    ? { ok: true, result: parsed.data }
    : { ok: false, message: `${command}: ${describeIssues(parsed.error, 'result')}` };
}

/** Calls the agent's handler of a checked request, with no cast between the command and its parameters. */
export function runCommand<K extends CommandName, Context>(
  handlers: CommandHandlers<Context>,
  request: CommandRequest<K>,
  context: Context,
): Promise<ResultOf<K>> {
  const handler: (params: ParamsOf<K>, context: Context) => Promise<ResultOf<K>> = handlers[request.command];
  return handler(request.params, context);
}
