/** How a cache loads some of its keys, and all of them. */
export interface Loader<K> {
  some(keys: readonly K[]): Promise<void>;
  all(): Promise<void>;
}

/**
 * Loads of a cache, run one at a time so that none overwrites what a later one read: a load asked
 * for while another runs waits for it, and everything asked for meanwhile is loaded together in
 * the next one. A load that started before a change was notified can thus never be the last word
 * on it. A failed load is reported to `failed`; one of some keys is followed at once by a load of
 * all, and a failed load of all waits for the next ask.
 */
export class SerialLoads<K> {
  private all = false;
  private readonly keys = new Set<K>();
  private next: { readonly done: Promise<void>; readonly finish: () => void } | null = null;
  private running = false;

  constructor(
    private readonly loader: Loader<K>,
    private readonly failed: (error: unknown) => void,
  ) {}

  /** Asks for a load of `key` (of all when `null`); resolves once a load that started after this call has ended. */
  ask(key: K | null): Promise<void> {
    if (key === null) this.all = true;
    else this.keys.add(key);
    const next = this.pending();
    if (!this.running) void this.drain();
    return next.done;
  }

  private pending(): { readonly done: Promise<void>; readonly finish: () => void } {
    if (this.next === null) {
      let finish: () => void = () => undefined;
      const done = new Promise<void>((resolve) => (finish = resolve));
      this.next = { done, finish };
    }
    return this.next;
  }

  private async drain(): Promise<void> {
    this.running = true;
    while (this.next !== null) {
      const round = this.next;
      this.next = null;
      const keys = this.all ? null : [...this.keys];
      this.all = false;
      this.keys.clear();
      await this.attempt(keys);
      round.finish();
    }
    this.running = false;
  }

  private async attempt(keys: readonly K[] | null): Promise<void> {
    try {
      await (keys === null ? this.loader.all() : this.loader.some(keys));
    } catch (error) {
      this.failed(error);
      if (keys !== null) await this.attempt(null);
    }
  }
}
