import type { AwaitedOperation } from '../neon/operation.js';
import type { RequestOutcome } from '../neon/send.js';
import { PROGRESS_CHOICES } from '../inputs.js';
import { readChoices } from '../settings/fields.js';
import { formatDuration } from '../util/duration.js';
import { INVISIBLE, neutralize, truncate } from '../util/text.js';

export type Stream = Pick<NodeJS.WriteStream, 'isTTY' | 'columns' | 'write'>;

/** Back to the start of the line and clear it (ECMA-48 CR + EL). */
const CLEAR_LINE = '\r\x1b[K';
const safe = (text: string): string => text.replace(INVISIBLE, ' ');
/** Whole seconds: elapsed time rounds down, as a clock does; time to the next check rounds up. */
const seconds = (ms: number, round = Math.floor): string =>
  formatDuration(Math.max(0, round(ms / 1000)) * 1000);

/** How stderr shows the wait: a line redrawn in place, plain lines with a heartbeat, or errors only. */
export type ProgressStyle = Exclude<(typeof PROGRESS_CHOICES)[number], 'auto'>;
/** Set by CI systems (docs/cli.md cites their docs); CircleCI and Buildkite run steps on a pty. */
const CI =
  /^(CI|GITLAB_CI|CIRCLECI|BUILDKITE|GITHUB_ACTIONS|JENKINS_URL|BUILD_ID|TF_BUILD|TEAMCITY_VERSION)$/;

/** `--progress` (else its variable; `--quiet` is none); auto: live on a terminal, unless dumb or CI. */
export function progressStyle(value: string, env: NodeJS.ProcessEnv, isTTY?: boolean) {
  const [word] = readChoices({ name: 'progress', value });
  const style = PROGRESS_CHOICES.find((choice) => choice === word);
  if (style !== undefined && style !== 'auto') return style;
  const ci = Object.entries(env).some(([k, v]) => CI.test(k) && v && v !== 'false');
  return isTTY && !ci && env.TERM !== 'dumb' ? 'live' : 'plain';
}

/** Plain lines: one at least this often (CircleCI stops a step silent for 10 minutes). */
export const HEARTBEAT_MS = 30_000;

/**
 * The command's stderr as the engine's log, lines made safe (no secret, no workflow command, no
 * control character). Once started: a status line redrawn each second, a heartbeat, or errors only.
 */
export class Terminal {
  private counts = 'starting';
  private nextCheckAt?: number;
  private deadline = NaN;
  private style: ProgressStyle = 'plain';
  private timer?: NodeJS.Timeout; // the live line's redraw, or the next heartbeat, while started

  constructor(
    private readonly out: Stream,
    private readonly startedAt: number,
    private readonly now: () => number = Date.now
  ) {}

  info = (message: string): void => this.line(message);
  warning = (message: string, title?: string): void =>
    this.line(`warning: ${title ? `${title}: ` : ''}${message}`);
  /** Written in every style, `none` included. */
  error = (message: string): void => this.line(`error: ${message}`, true);
  debug = (): void => undefined;

  /** After each check (`EngineDeps.onCheck`): what the status line shows. */
  onCheck = (operations: readonly AwaitedOperation[], nextCheckAt: number): void => {
    const keys = operations.map(({ status }) =>
      status ? safe(status).slice(0, 40) : 'not seen yet'
    );
    const count = (key: string) => keys.filter((k) => k === key).length;
    this.counts = [...new Set(keys)].map((key) => `${count(key)} ${key}`).join(', ');
    this.nextCheckAt = nextCheckAt;
    this.draw();
  };

  /** While the request is sent (`EngineDeps.onRequest`): a lock and what holds it, else the request. */
  onRequest = ({ method, path, holders }: RequestOutcome): void => {
    const held = holders.map((name) => safe(name).slice(0, 80)).join(', ');
    this.counts = held
      ? `project locked by ${held}`
      : `sending ${method} ${safe(path).slice(0, 80)}`;
    this.draw();
  };

  /** Shows the progress until `stop`, in this style, counting the time left to `deadline` (epoch ms). */
  start(style: ProgressStyle, deadline: number): void {
    this.style = style;
    this.deadline = deadline;
    if (style === 'live') this.timer = setInterval(() => this.draw(), 1000).unref();
    if (style === 'plain') this.beat();
    this.draw();
  }

  stop(): void {
    if (this.live()) this.out.write(CLEAR_LINE);
    clearTimeout(this.timer); // clears an interval too
    this.timer = undefined;
  }

  private live = (): boolean => this.style === 'live' && this.timer !== undefined;

  private beat(): void {
    clearTimeout(this.timer);
    const heartbeat = () => this.line(`still waiting after ${this.status()}`);
    this.timer = setTimeout(heartbeat, HEARTBEAT_MS).unref();
  }

  private line(message: string, always = false): void {
    if (this.style === 'none' && !always) return;
    const text = neutralize(message).split('\n').map(safe).join('\n');
    this.out.write(`${this.live() ? CLEAR_LINE : ''}${text}\n`);
    if (this.style === 'plain' && this.timer) this.beat();
    this.draw();
  }

  /** `12s · 2 running, 1 finished · next check in 3s · 9m48s left` */
  private status(): string {
    const now = this.now();
    const left = (this.nextCheckAt ?? NaN) - now;
    let next = this.nextCheckAt === undefined ? 'first check' : 'checking';
    if (left > 0) next = `next check in ${seconds(left, Math.ceil)}`;
    const remaining = `${seconds(this.deadline - now, Math.ceil)} left`;
    // While a request is sent, no check is due yet: its own state stands in their place.
    const checking = this.nextCheckAt !== undefined || this.counts === 'starting';
    return [
      seconds(now - this.startedAt),
      this.counts,
      ...(checking ? [next] : []),
      remaining
    ].join(' · ');
  }

  private draw(): void {
    if (!this.live()) return;
    // Wider than the terminal, it would wrap, and `\r` would no longer reach its start.
    const width = Math.max(20, (this.out.columns || 80) - 1);
    this.out.write(`${CLEAR_LINE}${truncate(`⏳ ${this.status()}`, width)}`);
  }
}
