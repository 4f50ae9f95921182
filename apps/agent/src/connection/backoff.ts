/**
 * Delays between reconnection attempts: exponential with full jitter, so that a control plane
 * that restarts is not hit by every agent in the same instant. The n-th delay since the last reset
 * is drawn from [minMs, min(maxMs, minMs * 2^n)].
 */
export class Backoff {
  private attempt = 0;

  constructor(
    private readonly minMs: number,
    private readonly maxMs: number,
    private readonly random: () => number = Math.random,
  ) {}

  next(): number {
    this.attempt += 1;
    const ceiling = Math.min(this.maxMs, this.minMs * 2 ** this.attempt);
    return Math.round(this.minMs + this.random() * (ceiling - this.minMs));
  }

  /** After a connection was accepted (`welcome`): the next loss is retried quickly again. */
  reset(): void {
    this.attempt = 0;
  }
}
