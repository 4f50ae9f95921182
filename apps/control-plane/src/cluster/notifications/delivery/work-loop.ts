/**
 * Runs a pass of work when woken and again after the wait each pass asks for, never two passes at
 * once: a wake during a pass runs another right after it. The dispatcher and the workers each
 * have one.
 */
export class WorkLoop {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  /** `pass` resolves with the milliseconds until the next pass unless woken; `failed` says how long to wait after a pass that threw. */
  constructor(
    private readonly pass: () => Promise<number>,
    private readonly failed: (error: unknown) => number,
  ) {}

  wake(): void {
    if (this.stopped) return;
    if (this.running !== null) {
      this.again = true;
      return;
    }
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.running = this.run();
  }

  /** No pass starts after this; resolves when the one under way has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    await this.running;
  }

  private async run(): Promise<void> {
    let wait: number;
    try {
      wait = await this.pass();
    } catch (error) {
      wait = this.failed(error);
    }
    this.running = null;
    if (this.stopped) return;
    if (this.again) {
      this.again = false;
      return this.wake();
    }
    this.timer = setTimeout(() => this.wake(), Math.max(0, wait));
    this.timer.unref();
  }
}
