import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { DatabaseNotifications } from '../database/notifications.js';
import { TASK_ENDS_CHANNEL } from './tasks.repository.js';

/** A wait for one task's end; `cancel()` it once done with, whether or not it woke. */
export interface TaskEndWait {
  /** Resolves when the task may have ended (read it again to know), at the deadline, or at shutdown. */
  readonly woken: Promise<void>;
  cancel(): void;
}

/**
 * Wakes the requests that wait for a task to end (`.../status?wait=`), on any replica: one
 * subscription to the tasks' end notifications, however many requests wait.
 */
@Injectable()
export class TaskEnds implements OnModuleDestroy {
  private readonly waiting = new Map<string, Set<() => void>>();
  private closed = false;

  constructor(notifications: DatabaseNotifications) {
    // null: notifications may have been missed, so every waiter looks again.
    notifications.subscribe(TASK_ENDS_CHANNEL, (upid) => (upid === null ? this.wakeAll() : this.wake(upid)));
  }

  /** Starts waiting for the task's end, until `deadline` (epoch ms). Start before reading the task, so that an end in between is not missed. */
  wait(upid: string, deadline: number): TaskEndWait {
    if (this.closed) return { woken: Promise.resolve(), cancel: () => undefined };
    let wake: () => void = () => undefined;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    const timer = setTimeout(wake, Math.max(0, deadline - Date.now()));
    const waiters = this.waiting.get(upid) ?? new Set();
    this.waiting.set(upid, waiters.add(wake));
    return {
      woken,
      cancel: () => {
        clearTimeout(timer);
        waiters.delete(wake);
        if (waiters.size === 0 && this.waiting.get(upid) === waiters) this.waiting.delete(upid);
      },
    };
  }

  /** How many tasks have waiters now. */
  get watched(): number {
    return this.waiting.size;
  }

  /** Waiting requests answer at once instead of holding the shutdown. */
  onModuleDestroy(): void {
    this.closed = true;
    this.wakeAll();
  }

  private wake(upid: string): void {
    for (const wake of this.waiting.get(upid) ?? []) wake();
  }

  private wakeAll(): void {
    for (const waiters of this.waiting.values()) for (const wake of waiters) wake();
  }
}
