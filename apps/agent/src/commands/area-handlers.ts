import type { CommandHandlers, CommandName } from '@corral/protocol';
import type { CommandContext } from '../drivers/command-context.js';

/** The handlers of one command area (dns, apt, ...); `createCommandHandlers` joins them all. */
export type AreaHandlers<K extends CommandName> = Pick<CommandHandlers<CommandContext>, K>;
