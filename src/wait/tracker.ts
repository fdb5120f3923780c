import * as log from '../action/log.js';
import { type Operation, shortId } from '../neon/operation.js';
import { classifyStatus, isKnownStatus, type Verdict } from './status.js';

/**
 * The awaited operations as last seen. Records every observation and logs one line per status
 * change, so a person can follow the wait in the job log.
 */
export class OperationTracker {
  private readonly ops = new Map<string, Operation | undefined>();
  private readonly warnedStatuses = new Set<string>();
  /** Operations the API has answered for at least once: their first answer is always logged. */
  private readonly fetched = new Set<string>();

  constructor(
    ids: readonly string[],
    given: readonly Operation[],
    private readonly now: () => number = Date.now
  ) {
    for (const id of ids) this.ops.set(id, undefined);
    for (const op of given) this.ops.set(op.id, op);
  }

  has(id: string): boolean {
    return this.ops.has(id);
  }

  get size(): number {
    return this.ops.size;
  }

  /** Adds an operation to the awaited set (project mode awaits what it finds in progress). */
  adopt(op: Operation): void {
    if (!this.ops.has(op.id)) this.ops.set(op.id, undefined);
    this.record(op);
  }

  record(op: Operation): void {
    const id = op.id.toLowerCase();
    if (!this.ops.has(id)) return;
    const before = this.ops.get(id);
    this.ops.set(id, op);
    const first = !this.fetched.has(id);
    this.fetched.add(id);
    if (!first && before?.status === op.status && before?.failures_count === op.failures_count)
      return;
    if (!isKnownStatus(op.status) && !this.warnedStatuses.has(op.status)) {
      this.warnedStatuses.add(op.status);
      log.warning(
        `Operation ${op.id} has status '${log.oneLine(op.status, 40)}', which this action does not know; ` +
          'it is treated as in progress.'
      );
    }
    const change =
      before && before.status !== op.status ? `${before.status} → ${op.status}` : op.status;
    const failures = op.failures_count ? ` (failures: ${op.failures_count})` : '';
    const error = op.error ? ` — error: ${log.oneLine(op.error)}` : '';
    log.info(
      `${clockTime(this.now())} ${log.oneLine(op.action, 60)} ${shortId(op.id)} ${change}${failures}${error}`
    );
  }

  /** Ids not yet at a conclusive status (never seen counts as open). */
  openIds(failFast: boolean): string[] {
    return [...this.ops]
      .filter(([, op]) => !op || classifyStatus(op.status, failFast) === 'pending')
      .map(([id]) => id);
  }

  verdict(failFast: boolean): Verdict {
    let pending = false;
    for (const op of this.ops.values()) {
      const verdict = op ? classifyStatus(op.status, failFast) : 'pending';
      if (verdict === 'failure') return 'failure';
      if (verdict === 'pending') pending = true;
    }
    return pending ? 'pending' : 'success';
  }

  /** Every awaited operation as last seen; one never seen appears with its id only. */
  list(): Operation[] {
    return [...this.ops].map(([id, op]) => op ?? ({ id } as Operation));
  }

  seen(): Operation[] {
    return [...this.ops.values()].filter((op): op is Operation => op !== undefined);
  }
}

function clockTime(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}
