import type { Command } from '../command-line/command.js';
import { ACL_COMMANDS } from './acl-commands.js';
import { AGENT_COMMANDS } from './agent-commands.js';
import { EVENTS_LISTEN_COMMAND } from './events-listen-command.js';
import { EVENTS_WEBHOOK_ADD_COMMAND } from './events-webhook-command.js';
import { GET_COMMAND } from './get-command.js';
import { JOIN_TOKEN_COMMANDS } from './join-token-commands.js';
import { TOKEN_COMMANDS } from './token-commands.js';

/** Every `corral` command, in the order the help lists them. */
export const COMMANDS: readonly Command[] = [
  ...TOKEN_COMMANDS,
  ...ACL_COMMANDS,
  ...JOIN_TOKEN_COMMANDS,
  ...AGENT_COMMANDS,
  EVENTS_LISTEN_COMMAND,
  EVENTS_WEBHOOK_ADD_COMMAND,
  GET_COMMAND,
];
