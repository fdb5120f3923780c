import { type AwaitedOperation, isSeen, type Operation } from '../neon/operation.js';
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
 * An operation has outlasted its history once it has run this much longer than the longest past
 * one of its kind. Less, and a right history's last few ends wait for the ladder (on ~10 s with 20
 * past operations, a mean notice of 0.59 s instead of 0.39 s); more, and a wrong history spends
 * more requests near its end (docs/performance.md).
 */
const PAST_LONGEST_MS = 250;

/**
 * Once an operation has outlasted its history, it is checked this much more often than the ladder
 * would check at that moment of the wait: a wrong history then costs about a tenth more requests
 * than the ladder, and the end is noticed about a tenth sooner (issue 30 class 22).
 */
export const PAST_HISTORY_PACE = 1.1;

/**
 * Per kind (`action`) with 5 or more past operations finished without failures: a kernel estimate
 * of `updated_at − created_at` in log time (`total_duration_ms` is not wall time), each kernel
 * widened by the 0.41 s spread of a difference of whole-second timestamps, and a broad prior. One
 * pass over the operations; each kind keeps its newest `HISTORY_PER_KIND`.
 *
 * An operation has outlasted its history once it has run `PAST_LONGEST_MS` longer than the longest
 * of them, or past the model's p99 (the kernels' tails): beyond that, history has no operation to
 * speak from, and the end may be anywhere (on an outage day, every operation runs long).
 */
export function learnHistory(operations: readonly Operation[]): Map<string, Survival> {
  const byAction = new Map<string, { logs: number[]; longestMs: number }>();
  for (const op of operations) {
    if (op.status !== 'finished' || op.failures_count) continue;
    const ms = Date.parse(op.updated_at) - Date.parse(op.created_at);
    const kind = byAction.get(op.action) ?? { logs: [], longestMs: 0 };
    byAction.set(op.action, kind);
    if (ms >= 0 && kind.logs.length < HISTORY_PER_KIND) {
      kind.logs.push(Math.log(Math.max(ms, 500)));
      kind.longestMs = Math.max(kind.longestMs, ms);
    }
  }
  const models = new Map<string, Survival>();
  for (const [action, { logs, longestMs }] of byAction) {
    if (logs.length < 5) continue;
    const mean = logs.reduce((a, b) => a + b) / logs.length;
    const sd = Math.sqrt(logs.reduce((a, x) => a + (x - mean) ** 2, 0) / logs.length);
    const h = Math.max(0.05, 1.06 * sd * logs.length ** -0.2);
    const seen = (t: number) =>
      logs.reduce((p, x) => p + tail((t - x) / Math.hypot(h, 410 / Math.exp(x))), 0) / logs.length;
    const w = 1 / (logs.length + 1); // the prior weighs one operation
    const at = (ms: number) =>
      ms > 0 ? (1 - w) * seen(Math.log(ms)) + w * tail(Math.log(ms) - mean) : 1;
    const outlasted = (ms: number) => ms > longestMs + PAST_LONGEST_MS || seen(Math.log(ms)) < 0.01;
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
  const area = [0]; // ∫ P(not done) from point 0
  for (let j = 1; j <= n; j++) area[j] = area[j - 1]! + ((s[j - 1]! + s[j]!) * step) / 2;
  const cost = new Float64Array(n + 1);
  const next = new Int32Array(n + 1).fill(n);
  const [lo, hi] = [Math.ceil(minGap! / step) || 1, Math.floor(maxGap! / step) || 1];
  for (let j = n - 1; j >= 0; j--) {
    cost[j] = Infinity;
    for (let k = Math.min(n, j + lo); k <= Math.min(n, j + hi); k++) {
      // A request if not done at j, and the delay of every end between j and k.
      const c = (costMs + (k - j) * step) * s[j]! - area[k]! + area[j]! + cost[k]!;
      if (c < cost[j]!) [cost[j], next[j]] = [c, k];
    }
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
  { maxGap, ladderMs, ladderNowMs }: Gaps
): number {
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
    const elapsed = elapsedOf(op, now);
    const key = `${Math.floor(Math.log(Math.max(elapsed, 250)) / AGE_BUCKET)} ${op.action}`;
    const other = youngest.get(key);
    if (!other || elapsed < other.elapsed) youngest.set(key, { model, elapsed });
  }
  for (const { model, elapsed } of youngest.values()) need = Math.min(need, plan(model, elapsed));
  return need;
}

/** How long an operation has run at `now` (the service's clock), from its timestamps. */
function elapsedOf(op: Operation, now: number): number {
  const created = Date.parse(op.created_at);
  // Whole-second timestamps: on average it began half a second after its created_at.
  const since = /\.\d/.test(op.created_at) ? 0 : 500;
  return Math.max(now - created - since, Date.parse(op.updated_at) - created || 0, 0);
}
