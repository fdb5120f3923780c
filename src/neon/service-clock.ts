/**
 * The service's clock as its answers show it: each `Date` header (whole seconds) was written while
 * the request was out, so `service − runner` lies in [date − receivedAt, date + 1 s − sentAt].
 * The bounds of every answer are intersected; when they stop agreeing (a clock stepped on either
 * side), the newest answer's bounds start afresh. Until an answer carries a date, the offset is 0.
 */
export class ServiceClock {
  private low = -Infinity;
  private high = Infinity;

  /** One answer: its `Date` header, and when (runner's clock, epoch ms) the request left and the answer came. */
  observe(date: string | undefined, sentAt: number, receivedAt: number): void {
    const at = Date.parse(date ?? '');
    if (!Number.isFinite(at)) return;
    const [low, high] = [at - receivedAt, at + 1000 - sentAt];
    if (low > this.high || high < this.low) [this.low, this.high] = [low, high];
    else [this.low, this.high] = [Math.max(this.low, low), Math.min(this.high, high)];
  }

  /**
   * `service − runner` in ms: the value within the bounds nearest 0, so that clocks in sync (the
   * usual case) keep the runner's time exactly and a skew is never overstated.
   */
  get offsetMs(): number {
    return Math.min(Math.max(0, this.low), this.high);
  }

  /** A service timestamp on the runner's clock. */
  toRunner(serviceMs: number): number {
    return serviceMs - this.offsetMs;
  }

  /** A runner's instant on the service's clock. */
  toService(runnerMs: number): number {
    return runnerMs + this.offsetMs;
  }

  /** A time the service's clock had certainly reached at the runner's instant (that instant itself when unmeasured). */
  reachedBy(runnerMs: number): number {
    return runnerMs + (Number.isFinite(this.low) ? this.low : 0);
  }
}
