import { type AwaitedOperation, isSeen, type Operation } from '../neon/operation.js';
import { isInProgress } from '../neon/operation-status.js';
import { MIN_GAP_MS } from '../neon/retry.js';

/**
 * P(an operation of one kind lasts longer than `ms`); `outlasted`: it has run longer than history
 * can speak for (see `learnHistory`).
 */
export type Survival = ((ms: number) => number) & { outlasted: (ms: number) => boolean };

/** A smooth step, P(Z > z) of a logistic close to the standard normal: kernels need no more. */
const tail = (z: number) => 1 / (1 + Math.exp(1.702 * z));

/** Past operations learned per kind, the newest (pages are newest first): a model costs no more. */
export const HISTORY_PER_KIND = 200;

/**
 * An operation has outlasted its history once it has run past the prediction's bound (below) and
 * a quarter second past the longest past one of its kind, or the kernels give it less than this.
 */
const OUTLASTED_BELOW = 0.01;

/** The longest past operation of a kind, and this much, is never yet outlasted (whole seconds). */
const PAST_LONGEST_MS = 250;

/**
 * Once an operation has outlasted its history, it is checked this much more often than the ladder
 * would check at that moment of the wait: a wrong history then costs about a tenth more requests
 * than the ladder, and the end is noticed about a tenth sooner (issue 30 class 22).
 */
export const PAST_HISTORY_PACE = 1.1;

/** P(Z > 2.326) = 1%, for a standard normal Z: the Student-t widening is taken at p99. */
const Z99 = 2.326;

/**
 * The prediction's bound, in its widths: P(Z > 2) = 2.3%. At p99 (2.326) a history three times too
 * fast spent a tenth more than the ladder over 8 to 33 s; at p95 (1.645) five past operations of
 * ~8 s left one a little longer than all of them 0.9 s late on average (p90 4.3 s).
 */
const BOUND_WIDTHS = 2;

/**
 * How much farther a Student-t with `nu` degrees of freedom reaches at its p99 than the normal
 * (Cornish–Fisher): 1.55 for 5 samples, 1.09 for 20. Few samples bound their kind's tail poorly.
 */
const studentWidening = (nu: number) =>
  1 + (Z99 ** 2 + 1) / (4 * nu) + (5 * Z99 ** 4 + 16 * Z99 ** 2 + 3) / (96 * nu ** 2);

/**
 * Per kind (`action`) with 5 or more past operations finished without failures, what history
 * predicts of the next one's length, in log time (`updated_at` − when it began to run, see
 * `runStarts`: `total_duration_ms` is not wall time; each widened by the 0.41 s spread of a difference of whole-second timestamps):
 * - a kernel estimate (Silverman's bandwidth), the shape of what was seen;
 * - a prediction for one more operation (in ms), as wide as a Student-t's with the samples' mean
 *   and spread: spread × √(1 + 1/n), and the t's longer tail for few of them. It weighs as much as
 *   one past operation (one more lands past all n with chance 1/(n + 1)), so that five samples
 *   leave room past the longest of them;
 * - a broad prior ("history is wrong"), as much as one past operation.
 * One pass over the operations; each kind keeps its newest `HISTORY_PER_KIND`.
 *
 * An operation has outlasted its history once it has run past the prediction's bound (mean + 2
 * widths: 10.5 s for five of ~8 s, 5.3 s for twenty of ~4 s) and past the longest of them (or the
 * kernels give it under 1%): beyond that, the history is wrong (on an outage day, every operation
 * runs long), and the end may be anywhere.
 */
export function learnHistory(operations: readonly Operation[]): Map<string, Survival> {
  const byAction = new Map<string, number[]>();
  const starts = runStarts(operations);
  for (const op of operations) {
    if (op.status !== 'finished' || op.failures_count) continue;
    const ms = Date.parse(op.updated_at) - (starts.get(op) ?? Date.parse(op.created_at));
    const lengths = byAction.get(op.action) ?? [];
    byAction.set(op.action, lengths);
    if (ms >= 0 && lengths.length < HISTORY_PER_KIND) lengths.push(Math.max(ms, 500));
  }
  const models = new Map<string, Survival>();
  for (const [action, lengths] of byAction) {
    const n = lengths.length;
    if (n < 5) continue;
    const logs = lengths.map(Math.log);
    const mean = logs.reduce((a, b) => a + b) / n;
    const sd = Math.sqrt(logs.reduce((a, x) => a + (x - mean) ** 2, 0) / n);
    const h = Math.max(0.05, 1.06 * sd * n ** -0.2);
    const precision = (x: number) => 410 / Math.exp(x);
    // One kernel per distinct length, weighed by how many share it (whole-second timestamps leave
    // a few dozen among 200), its width computed once: the planner's CPU was mostly these sums.
    const counts = new Map<number, number>();
    for (const x of logs) counts.set(x, (counts.get(x) ?? 0) + 1);
    const kernels = [...counts].map(([x, count]) => ({
      x,
      width: Math.hypot(h, precision(x)),
      weight: count / n
    }));
    const seen = (t: number) =>
      kernels.reduce((p, { x, width, weight }) => p + weight * tail((t - x) / width), 0);
    // The prediction for one more, in ms (whole-second lengths carry their rounding already).
    const meanMs = lengths.reduce((a, b) => a + b) / n;
    const spreadMs = Math.sqrt(lengths.reduce((a, x) => a + (x - meanMs) ** 2, 0) / (n - 1));
    const width = Math.max(spreadMs, 410) * Math.sqrt(1 + 1 / n) * studentWidening(n - 1);
    const bound = meanMs + BOUND_WIDTHS * width;
    const longest = Math.max(...lengths) + PAST_LONGEST_MS;
    const a = 1 / (n + 1);
    const right = (ms: number) => (1 - a) * seen(Math.log(ms)) + a * tail((ms - meanMs) / width);
    const w = 1 / (n + 1); // the prior weighs one operation
    const at = (ms: number) => (ms > 0 ? (1 - w) * right(ms) + w * tail(Math.log(ms) - mean) : 1);
    const outlasted = (ms: number) =>
      ms > bound && (ms > longest || seen(Math.log(ms)) < OUTLASTED_BELOW);
    models.set(action, Object.assign(at, { outlasted }));
  }
  return models;
}

/**
 * Barlow, Hunter and Proschan's dynamic program on P(not done) at points `step` ms apart: `next[j]`
 * is the point of the check after one at `j`, a request priced at `costMs` of notice delay.
 */
export function checkPlan(s: number[], step: number, costMs: number, [minGap, maxGap]: number[]) {
  const n = s.length - 1;
  const area = new Float64Array(n + 1); // ∫ P(not done) from point 0
  for (let j = 1; j <= n; j++) area[j] = area[j - 1]! + ((s[j - 1]! + s[j]!) * step) / 2;
  const cost = new Float64Array(n + 1);
  const next = new Int32Array(n + 1).fill(n);
  const [lo, hi] = [Math.ceil(minGap! / step) || 1, Math.floor(maxGap! / step) || 1];
  // The planner's CPU is this loop's (a few hundred points, each against up to a few hundred).
  for (let j = n - 1; j >= 0; j--) {
    const [notDone, areaHere] = [s[j]!, area[j]!];
    let [best, bestK] = [Infinity, n];
    const last = Math.min(n, j + hi);
    for (let k = Math.min(n, j + lo); k <= last; k++) {
      // A request if not done at j, and the delay of every end between j and k.
      const c = (costMs + (k - j) * step) * notDone - area[k]! + areaHere + cost[k]!;
      if (c < best) {
        best = c;
        bestK = k;
      }
    }
    cost[j] = best;
    next[j] = bestK;
  }
  return next;
}

/** Ages within this ratio of each other share one plan: a check's CPU does not grow with the count. */
const AGE_BUCKET = 0.05;

/** The gaps the learned schedule chooses within, from the wait's ladder (`schedule.ts`). */
export interface Gaps {
  /** The longest gap between checks: `interval`. */
  maxGap: number;
  /** The ladder's next delay by the checks made: for an operation history cannot speak for. */
  ladderMs: number;
  /** The ladder's delay at this moment of the wait, by the clock (`ladderAt`). */
  ladderNowMs: number;
}

/**
 * Ms to the next check: the earliest any open operation needs by its kind's history (a request
 * worth 0.2 s), at most `maxGap`. An operation history cannot speak for has the ladder's next
 * delay; one that outlasted its history, the ladder's delay of the moment, `PAST_HISTORY_PACE`
 * times faster. Operations of one kind and about the same age (within 5%) share one plan, made for
 * the youngest of them.
 */
export function nextCheckIn(
  models: ReadonlyMap<string, Survival>,
  open: AwaitedOperation[],
  now: number,
  { maxGap, ladderMs, ladderNowMs }: Gaps,
  known: readonly AwaitedOperation[] = open
): number {
  const starts = runStarts(known.filter(isSeen), open.filter(isSeen));
  const plan = (model: Survival, elapsed: number) => {
    if (model.outlasted(elapsed)) return ladderNowMs / PAST_HISTORY_PACE;
    let horizon = maxGap;
    while (model(elapsed + horizon) > model(elapsed) / 100 && horizon < 3_600_000) horizon *= 2;
    const step = maxGap / Math.ceil((maxGap * 300) / horizon); // ~300 points, maxGap one of them
    const grid = Array.from({ length: horizon / step + 1 }, (_, j) => model(elapsed + j * step));
    return checkPlan(grid, step, 200, [MIN_GAP_MS, maxGap])[0]! * step;
  };
  // Per kind and age bucket, the youngest operation's elapsed time.
  const youngest = new Map<string, { model: Survival; elapsed: number }>();
  let need = maxGap;
  for (const op of open) {
    // Never described: nothing says what it is or how old, so the ladder decides.
    const model = isSeen(op) ? models.get(op.action) : undefined;
    if (!isSeen(op) || !model || !Number.isFinite(Date.parse(op.created_at))) {
      need = Math.min(need, ladderMs);
      continue;
    }
    const elapsed = elapsedOf(op, now, starts.get(op));
    const key = `${Math.floor(Math.log(Math.max(elapsed, 250)) / AGE_BUCKET)} ${op.action}`;
    const other = youngest.get(key);
    if (!other || elapsed < other.elapsed) youngest.set(key, { model, elapsed });
  }
  for (const { model, elapsed } of youngest.values()) need = Math.min(need, plan(model, elapsed));
  return need;
}

/**
 * When each operation began to run (ms), where the operations before it tell: the service runs a
 * branch's operations one at a time, so one created with or after another on its branch (a
 * restore's `start_compute` after its `create_timeline`) waits, `scheduling`, until that one has
 * ended; it runs from the latest such end (`updated_at` of the finished ones that ended first).
 * Timed from `created_at` instead, a queued operation seems to overrun its kind's history by the
 * queue's length, and the checks back off just as it ends (issue 43). `of`: the operations to
 * time (the open ones, at a check), against all of `operations`.
 */
export function runStarts(
  operations: readonly Operation[],
  of: readonly Operation[] = operations
): Map<Operation, number> {
  // The ones that ended, by branch: only they can have come first.
  const ended = new Map<string, Array<{ op: Operation; created: number; ended: number }>>();
  for (const op of operations) {
    if (op.branch_id === undefined || isInProgress(op.status)) continue;
    const timed = { op, created: Date.parse(op.created_at), ended: Date.parse(op.updated_at) };
    const mates = ended.get(op.branch_id);
    if (mates) mates.push(timed);
    else ended.set(op.branch_id, [timed]);
  }
  const starts = new Map<Operation, number>();
  for (const op of of) {
    const [created, end] = [Date.parse(op.created_at), Date.parse(op.updated_at)];
    const running = isInProgress(op.status);
    let start = created;
    const mates = op.branch_id === undefined ? [] : (ended.get(op.branch_id) ?? []);
    for (const before of mates) {
      const runsFirst =
        before.op !== op && before.created <= created && (running || before.ended <= end);
      if (runsFirst && before.ended > start) start = before.ended;
    }
    starts.set(op, start);
  }
  return starts;
}

/**
 * How long an operation has run at `now` (the service's clock), from when it began (`runStarts`,
 * its `created_at` where nothing is known): none while it is still `scheduling`.
 */
function elapsedOf(op: Operation, now: number, start = Date.parse(op.created_at)): number {
  if (op.status === 'scheduling') return 0;
  // Whole-second timestamps: on average it began half a second after the one written.
  const since = /\.\d/.test(op.created_at) ? 0 : 500;
  return Math.max(now - start - since, Date.parse(op.updated_at) - start || 0, 0);
}

/** The duration an operation of a kind outlasts half the time (`Survival` is P(longer than ms)), to 0.1 s. */
function medianMs(model: Survival): number {
  let [lo, hi] = [0, 3_600_000];
  while (hi - lo > 100) {
    const mid = (lo + hi) / 2;
    if (model(mid) > 0.5) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** Each kind's median duration (ms) among these operations, for kinds with a history (a request's `durations`). */
export function typicalDurations(operations: Operation[]): Map<string, number> {
  const typical = new Map<string, number>();
  for (const [kind, model] of learnHistory(operations)) typical.set(kind, medianMs(model));
  return typical;
}
