import { type AwaitedOperation, type Operation, shortId } from '../neon/operation.js';
import { formatDuration } from '../util/duration.js';
import { oneLine } from '../util/text.js';
import { isKnownStatus } from '../neon/operation-status.js';
import { type FailurePolicy, type Verdict, verdictOf } from './status.js';

/** Where the wait tells a person what it sees: the job log in the action, nothing in the benchmark. */
export interface WaitLog {
  info(message: string): void;
  warning(message: string, title?: string): void;
}

/**
 * A `failed` operation that neither changes nor has a retry scheduled for this long is taken as
 * given up on. The control plane retries within seconds when it retries at all.
 */
export const FAILED_GRACE_MS = 20_000;

interface Entry {
  op?: Operation;
  /** The API has answered for this operation: an `operations` input's status is only a hint. */
  confirmed: boolean;
  /** When this wait first saw the operation as it is now (status, failures, update time). */
  since: number;
  /** When the API last answered for it (0: never), to refresh the stalest first. */
  heard: number;
}

/** `retry_at`, on the service's clock (NaN: none). */
const retryAtOf = (op?: Operation): number => Date.parse(String(op?.retry_at ?? ''));

function retryNote(due: number): string {
  if (Number.isNaN(due)) return ' — no retry scheduled yet';
  return due > 0 ? ` — retry due in ${formatDuration(due)}` : ' — retry was due';
}

/** The awaited operations as last seen; one log line per change, for a person to follow. */
export class OperationTracker {
  private readonly entries = new Map<string, Entry>();
  private readonly warnedStatuses = new Set<string>();

  constructor(
    ids: readonly string[],
    given: readonly Operation[],
    private readonly log: WaitLog,
    readonly now: () => number = Date.now,
    /** A service timestamp on the clock of `now`: `retry_at` is the service's. */
    private readonly toRunner: (serviceMs: number) => number = (ms) => ms
  ) {
    const since = now();
    const heard = 0;
    for (const id of ids) this.entries.set(id, { since, heard, confirmed: false });
    for (const op of given) this.entries.set(op.id, { op, since, heard, confirmed: false });
  }

  /** `adopt`: add the operation to the awaited set if new (project and job modes await what they find). */
  record(op: Operation, adopt = false): void {
    const id = op.id.toLowerCase();
    if (adopt && !this.entries.has(id))
      this.entries.set(id, { since: this.now(), heard: 0, confirmed: false });
    const entry = this.entries.get(id);
    if (!entry) return;
    const { op: before, confirmed } = entry;
    const same = before?.status === op.status && before?.failures_count === op.failures_count;
    if (confirmed && (!same || before?.updated_at !== op.updated_at)) entry.since = this.now();
    Object.assign(entry, { op, confirmed: true, heard: this.now() });
    if (confirmed && same) return;
    if (!isKnownStatus(op.status) && !this.warnedStatuses.has(op.status)) {
      this.warnedStatuses.add(op.status);
      this.log.warning(
        `Operation ${op.id} has status '${oneLine(op.status, 40)}', which this action does not know; ` +
          'it is treated as in progress.',
        'Unknown operation status'
      );
    }
    const change =
      before && before.status !== op.status ? `${before.status} → ${op.status}` : op.status;
    const failures = op.failures_count ? ` (failures: ${op.failures_count})` : '';
    const retry = op.status === 'failed' ? retryNote(this.retryAt(op) - this.now()) : '';
    const error = op.error ? ` — error: ${oneLine(op.error)}` : '';
    const time = new Date(this.now()).toISOString().slice(11, 19);
    this.log.info(
      `${time} ${oneLine(op.action, 60)} ${shortId(op.id)} ${oneLine(change, 80)}${failures}${retry}${error}`
    );
  }

  /** A `failed` one stays pending until `retry_at` (or its last change, if later) + the grace. */
  judge(id: string, policy: FailurePolicy): Verdict {
    const entry = this.entries.get(id);
    if (!entry?.op || !entry.confirmed) return 'pending';
    const { op, since } = entry;
    if (op.status !== 'failed' || policy.failFast) return verdictOf(op.status, policy);
    return this.now() < Math.max(since, this.retryAt(op) || 0) + FAILED_GRACE_MS
      ? 'pending'
      : 'failure';
  }

  /** Ids not yet at a conclusive status (never seen counts as open). */
  openIds(policy: FailurePolicy): string[] {
    return [...this.entries.keys()].filter((id) => this.judge(id, policy) === 'pending');
  }

  /** `untilSettled` (project, job modes): a failure ends it early only with fail_fast. */
  verdict(policy: FailurePolicy, untilSettled = false): Verdict {
    if ((policy.failFast || !untilSettled) && this.failures(policy).length) return 'failure';
    return this.openIds(policy).length ? 'pending' : 'success';
  }

  /**
   * Just after the earliest `retry_at`, when every open operation is `failed` with a retry scheduled
   * ahead; else undefined, and the usual schedule applies (a change may come at any moment).
   */
  nextUsefulCheck(policy: FailurePolicy): number | undefined {
    return this.earliestOpen(policy, (op) =>
      op?.status === 'failed' && this.retryAt(op) > this.now() ? this.retryAt(op) + 1000 : NaN
    );
  }

  /** Created time of the oldest open operation, when every open one is known; else undefined. */
  oldestOpen(policy: FailurePolicy): number | undefined {
    return this.earliestOpen(policy, (op) => Date.parse(String(op?.created_at ?? '')));
  }

  /** At most `count` of these ids, those the API answered for longest ago (never first). */
  stalest(ids: readonly string[], count: number): string[] {
    const heard = (id: string) => this.entries.get(id)?.heard ?? 0;
    return [...ids].sort((a, b) => heard(a) - heard(b)).slice(0, count);
  }

  /** Every awaited operation as last seen; one never seen appears with its id only. */
  list(): AwaitedOperation[] {
    return [...this.entries].map(([id, entry]) => entry.op ?? { id });
  }

  seen(): Operation[] {
    return [...this.entries.values()].flatMap((e) => (e.op && e.confirmed ? [e.op] : []));
  }

  failures(policy: FailurePolicy): Operation[] {
    return this.seen().filter((op) => this.judge(op.id, policy) === 'failure');
  }

  /** `retry_at` on the clock of `now` (NaN: none). */
  private retryAt(op?: Operation): number {
    return this.toRunner(retryAtOf(op));
  }

  /** The smallest time `of` gives an open operation; undefined if none is open or one gives NaN. */
  private earliestOpen(policy: FailurePolicy, of: (op?: Operation) => number): number | undefined {
    const times = this.openIds(policy).map((id) => of(this.entries.get(id)?.op));
    return times.length && !times.some(Number.isNaN) ? Math.min(...times) : undefined;
  }
}
