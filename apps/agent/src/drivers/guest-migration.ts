import type { ParamsOf, ResultOf } from '@corral/protocol';
import type { CommandContext } from './command-context.js';

/**
 * A driver's part of a VM's migration between two nodes (the `guest.migrate.*` commands; what
 * each step does is in libs/protocol's guest-migrate.ts). The same driver serves both sides: the
 * target runs `receive` and then `finish` or `abort`, the source runs `send`. Errors are thrown as
 * by the other driver methods, as the task's end text.
 */
export interface GuestMigration {
  receive(params: ParamsOf<'guest.migrate.receive'>, context: CommandContext): Promise<ResultOf<'guest.migrate.receive'>>;
  send(params: ParamsOf<'guest.migrate.send'>, context: CommandContext): Promise<ResultOf<'guest.migrate.send'>>;
  finish(params: ParamsOf<'guest.migrate.finish'>, context: CommandContext): Promise<void>;
  abort(params: ParamsOf<'guest.migrate.abort'>, context: CommandContext): Promise<void>;
}
