import { ApiError } from '../../errors/api-error.js';

/** How long a client refused for a full queue is told to wait. */
const RETRY_AFTER_S = 1;

/**
 * Password hashing with bounded concurrency: at most `running` scrypt derivations at once and
 * `waiting` more queued in order. Each costs about a third of a second of CPU and 32 MiB, and a
 * login for an unknown user costs the same as one for a real user (so that timing does not tell
 * which users exist): without a bound, logins with made-up names would take every core from real
 * work. A check that finds the queue full is refused at once with 429 and `Retry-After`.
 */
export class HashingSlots {
  private active = 0;
  private readonly queue: (() => void)[] = [];

  constructor(private readonly limits: { readonly running: number; readonly waiting: number } = { running: 2, waiting: 8 }) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active < this.limits.running) this.active += 1;
    else if (this.queue.length < this.limits.waiting) await new Promise<void>((resolve) => this.queue.push(resolve));
    else
      throw new ApiError('TOO_MANY_LOGINS', 'too many logins at once: try again shortly', {
        headers: { 'retry-after': String(RETRY_AFTER_S) },
      });
    try {
      return await work();
    } finally {
      // The slot passes to the next in the queue, or is freed.
      const next = this.queue.shift();
      if (next) next();
      else this.active -= 1;
    }
  }
}
