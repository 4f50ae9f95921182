/**
 * The control-plane URLs the agent may connect to: the configured ones (`url` in its config, in
 * that order), then the replicas the last `welcome` named that are not configured. A connection
 * that fails or ends moves on to the next URL at once; only when every URL has failed since the
 * last `welcome` does the agent wait (its backoff) before the next round. So an agent whose replica
 * dies is on another one as soon as it can dial it.
 */
export class ControlPlanes {
  private learned: readonly URL[] = [];
  private index = 0;
  /** Failed or ended connections since the last welcome. */
  private failures = 0;

  constructor(private readonly configured: readonly URL[]) {
    if (configured.length === 0) throw new Error('at least one control-plane URL is needed');
  }

  /** The URL to dial now; once connected, the one the connection is to (its streams go there too). */
  get current(): URL {
    const all = this.all();
    return all[this.index % all.length] as URL;
  }

  /** Every URL, in the order they are tried. */
  all(): readonly URL[] {
    const known = new Set(this.configured.map((url) => url.origin));
    return [...this.configured, ...this.learned.filter((url) => !known.has(url.origin))];
  }

  /** A connection was welcomed; `replicas` are the URLs the welcome named (absent: the ones learned before stay). */
  welcomed(replicas: readonly string[] | undefined): void {
    this.failures = 0;
    if (replicas === undefined) return;
    const current = this.current.origin;
    this.learned = replicas.map((text) => new URL(text));
    this.index = Math.max(
      0,
      this.all().findIndex((url) => url.origin === current),
    );
  }

  /** The connection to `current` failed or ended: the next URL becomes current. True when every URL has failed since the last welcome, so the agent waits before going on. */
  next(): boolean {
    const count = this.all().length;
    this.failures += 1;
    this.index = (this.index + 1) % count;
    return this.failures % count === 0;
  }
}
