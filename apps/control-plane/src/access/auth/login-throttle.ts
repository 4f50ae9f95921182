/**
 * Failed-login throttling per (user, client address): after `limit` failures within `windowS`,
 * that pair is refused until the oldest of them leaves the window. Another address of the same
 * user is not affected, so an attacker cannot lock the real user out. A success clears the pair.
 * In memory, per control-plane process; bounded, the oldest pairs are forgotten first.
 */
export class LoginThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly options: { readonly limit: number; readonly windowS: number; readonly maxTracked: number } = {
      limit: 5,
      windowS: 300,
      maxTracked: 100_000,
    },
  ) {}

  /** Seconds until `user` may try again from `address`; 0 when it may now. */
  retryAfter(user: string, address: string, nowS: number): number {
    const recent = this.recent(key(user, address), nowS);
    if (recent.length < this.options.limit) return 0;
    const [oldest = nowS] = recent;
    return Math.max(1, Math.ceil(oldest + this.options.windowS - nowS));
  }

  failed(user: string, address: string, nowS: number): void {
    const k = key(user, address);
    const recent = [...this.recent(k, nowS), nowS].slice(-this.options.limit);
    this.failures.delete(k);
    this.failures.set(k, recent);
    const [first] = this.failures.keys();
    if (this.failures.size > this.options.maxTracked && first !== undefined) this.failures.delete(first);
  }

  succeeded(user: string, address: string): void {
    this.failures.delete(key(user, address));
  }

  private recent(k: string, nowS: number): number[] {
    return (this.failures.get(k) ?? []).filter((t) => t > nowS - this.options.windowS);
  }
}

function key(user: string, address: string): string {
  return `${user}\0${address}`;
}
