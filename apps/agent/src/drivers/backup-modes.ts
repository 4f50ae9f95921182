import type { BackupMode, GuestType } from '@corral/protocol';

/*
 * How a backup treats its guest, in vzdump's words (PVE::VZDump's exec_backup_task): the lines
 * every driver that makes archives itself writes to the task log and the backup's `.log`.
 */

/** vzdump's log lines around the copy of a guest it pauses or stops. */
export const MODE_STEPS = {
  suspending: 'INFO: suspending guest',
  resuming: 'INFO: resuming guest',
  stopping: 'INFO: stopping virtual guest',
  restarting: 'INFO: restarting vm',
} as const;

/** The mode asked of a guest found paused: it stays paused for the copy, where `stop` would run it again after. */
export function pausedMode(requested: BackupMode, paused: boolean): BackupMode {
  return paused && requested === 'stop' ? 'suspend' : requested;
}

/**
 * The mode a backup runs in, logged as vzdump logs it: a guest that is not running is backed up in
 * `stop` mode (there is nothing to stop); `snapshot` of a running container falls back to
 * `suspend`, its root being a directory, which has no snapshots.
 */
export function backupMode(type: GuestType, requested: BackupMode, running: boolean, log: (line: string) => void): BackupMode {
  let mode = running ? requested : 'stop';
  if (mode === 'snapshot' && type === 'lxc') {
    log('INFO: mode failure - some volumes do not support snapshots');
    log("INFO: trying 'suspend' mode instead");
    mode = 'suspend';
  }
  log(`INFO: backup mode: ${mode}`);
  return mode;
}

/**
 * Runs `then` (the guest running again) after `work`, whatever its outcome: when both fail, the
 * work's error stands, being the cause, and `then`'s goes to the log.
 */
export async function afterwards<T>(work: Promise<T>, log: (line: string) => void, then: () => Promise<void>): Promise<T> {
  let result: T;
  try {
    result = await work;
  } catch (error) {
    await then().catch((failure: unknown) => log(failure instanceof Error ? failure.message : String(failure)));
    throw error;
  }
  await then();
  return result;
}
