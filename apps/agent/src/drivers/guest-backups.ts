import type { ParamsOf, ResultOf } from '@corral/protocol';
import type { CommandContext } from './command-context.js';

/**
 * A driver's backups and restores (the `guest.backup`, `guest.backup.config` and `guest.restore`
 * commands; what each does, and the archive format, are in libs/protocol's guest-backup.ts and
 * docs/backups.md). Errors are thrown as by the other driver methods, as the task's end text.
 */
export interface GuestBackups {
  backup(params: ParamsOf<'guest.backup'>, context: CommandContext): Promise<ResultOf<'guest.backup'>>;
  config(params: ParamsOf<'guest.backup.config'>, context: CommandContext): Promise<ResultOf<'guest.backup.config'>>;
  restore(params: ParamsOf<'guest.restore'>, context: CommandContext): Promise<void>;
}
