import type { Operation } from '../neon/operation.js';
import { formatDuration } from '../util/duration.js';
import { INVISIBLE, neutralize, truncate } from '../util/text.js';

export type Stream = Pick<NodeJS.WriteStream, 'isTTY' | 'columns' | 'write'>;

/** Back to the start of the line and clear it (ECMA-48 CR + EL). */
const CLEAR_LINE = '\r\x1b[K';
const safe = (text: string): string => text.replace(INVISIBLE, ' ');
/** Whole seconds: elapsed time rounds down, as a clock does; time to the next check rounds up. */
const seconds = (ms: number, round = Math.floor): string =>
  formatDuration(Math.max(0, round(ms / 1000)) * 1000);

/**
 * The command's stderr as the engine's log: the action's lines made safe (no secret, no workflow
 * command, no control character from the API). On a terminal, a status line below them is redrawn
 * each second: elapsed time, operations by status, the next check. Two escape codes need no library.
 */
export class Terminal {
  private counts = 'starting';
  private nextCheckAt?: number;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly out: Stream,
    private readonly startedAt: number,
    private readonly now: () => number = Date.now
  ) {}

  info = (message: string): void => this.line(message);
  warning = (message: string, title?: string): void =>
    this.line(`warning: ${title ? `${title}: ` : ''}${message}`);
  debug = (): void => undefined;

  /** After each check (`EngineDeps.onCheck`): what the status line shows. */
  onCheck = (operations: readonly Operation[], nextCheckAt: number): void => {
    const byStatus = new Map<string, number>();
    for (const { status } of operations) {
      const key = status ? safe(status).slice(0, 40) : 'not seen yet';
      byStatus.set(key, (byStatus.get(key) ?? 0) + 1);
    }
    this.counts = [...byStatus].map(([status, n]) => `${n} ${status}`).join(', ');
    this.nextCheckAt = nextCheckAt;
    this.draw();
  };

  /** On a terminal, shows the status line until `stop`; elsewhere, nothing. */
  start(): void {
    if (this.out.isTTY) this.timer = setInterval(() => this.draw(), 1000).unref();
    this.draw();
  }

  stop(): void {
    if (this.timer) this.out.write(CLEAR_LINE);
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private line(message: string): void {
    const text = neutralize(message).split('\n').map(safe).join('\n');
    this.out.write(`${this.timer ? CLEAR_LINE : ''}${text}\n`);
    this.draw();
  }

  private draw(): void {
    if (!this.timer) return;
    const now = this.now();
    const left = (this.nextCheckAt ?? NaN) - now;
    let next = this.nextCheckAt === undefined ? 'first check' : 'checking';
    if (left > 0) next = `next check in ${seconds(left, Math.ceil)}`;
    const text = `⏳ ${seconds(now - this.startedAt)} · ${this.counts} · ${next}`;
    // Wider than the terminal, it would wrap, and `\r` would no longer reach its start.
    this.out.write(`${CLEAR_LINE}${truncate(text, Math.max(20, (this.out.columns || 80) - 1))}`);
  }
}
