import type { Operation } from '../neon/operation.js';
import { MIN_GAP_MS } from '../neon/retry.js';

/** P(an operation lasts longer than `ms`), learned from the project's past operations of its kind. */
export type Survival = ((ms: number) => number) & { outlasted: (ms: number) => boolean };

/** Below this many past operations of a kind, or past history's p99, the wait keeps its ladder. */
const MIN_PAST = 5;
const OUTLASTED = 0.01;
/** What one request is worth in notice delay (ms): the trade-off the schedule makes. */
const REQUEST_COST_MS = 200;

/**
 * One model per kind of operation (`action`) with enough history, from the operations list the first
 * check read anyway. A duration is `updated_at − created_at` of one that finished without failures:
 * `total_duration_ms` is not wall time.
 */
export function learnHistory(operations: readonly Operation[]): Map<string, Survival> {
  const durations = new Map<string, number[]>();
  for (const op of operations) {
    const ms = Date.parse(op.updated_at) - Date.parse(op.created_at);
    if (op.status === 'finished' && !op.failures_count && ms >= 0)
      durations.set(op.action, [...(durations.get(op.action) ?? []), ms]);
  }
  const models = new Map<string, Survival>();
  for (const [action, ms] of durations) if (ms.length >= MIN_PAST) models.set(action, survival(ms));
  return models;
}

/**
 * A kernel estimate in log time (Silverman's bandwidth), each kernel widened by the timestamps'
 * one-second precision, blended with a broad prior around the median (one past operation's weight)
 * so that a wait longer or shorter than any seen keeps some probability.
 */
export function survival(durations: readonly number[]): Survival {
  const logs = durations.map((ms) => Math.log(Math.max(ms, 500)));
  const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
  const sd = Math.sqrt(logs.reduce((a, x) => a + (x - mean) ** 2, 0) / logs.length);
  const h = Math.max(0.05, 1.06 * sd * logs.length ** -0.2);
  const kernels = logs.map((x) => [x, Math.hypot(h, 410 / Math.exp(x))] as const);
  const seen = (ms: number) =>
    kernels.reduce((p, [mu, s]) => p + upperTail((Math.log(ms) - mu) / s), 0) / kernels.length;
  const prior = 1 / (kernels.length + 1);
  return Object.assign(
    (ms: number) => (ms <= 0 ? 1 : (1 - prior) * seen(ms) + prior * upperTail(Math.log(ms) - mean)),
    { outlasted: (ms: number) => seen(ms) < OUTLASTED }
  );
}

/**
 * Checks after a look at time 0 that found the operation not done, from a grid of `step` ms:
 * `next[j]` is the grid point of the check after one at `j`, by Barlow, Hunter and Proschan's
 * dynamic program, each request charged `costMs` of delay; gaps from `minGap` to `maxGap` ms.
 */
export function checkPlan(
  survivalAt: readonly number[],
  step: number,
  costMs: number,
  minGap: number,
  maxGap: number
): Int32Array {
  const n = survivalAt.length - 1;
  const area = [0];
  for (let j = 1; j <= n; j++)
    area[j] = area[j - 1]! + ((survivalAt[j - 1]! + survivalAt[j]!) * step) / 2;
  const cost = new Float64Array(n + 1);
  const next = new Int32Array(n + 1).fill(n);
  const [lo, hi] = [Math.max(1, Math.ceil(minGap / step)), Math.max(1, Math.floor(maxGap / step))];
  for (let j = n - 1; j >= 0; j--) {
    const s = survivalAt[j]!;
    cost[j] = Infinity;
    for (let k = Math.min(n, j + lo); k <= Math.min(n, j + hi); k++) {
      // Charged by how likely the check is made at all; the delay is that of ends before it.
      const c = costMs * s + (k - j) * step * s - (area[k]! - area[j]!) + cost[k]!;
      if (c < cost[j]!) [cost[j], next[j]] = [c, k];
    }
  }
  return next;
}

/**
 * When to look again for one open operation (ms from now) by its kind's history, conditioned on
 * how long it has run by the service's timestamps; undefined when history cannot say (too few past
 * operations of its kind, or it has outlasted history's p99): the ladder decides then.
 */
export function learnedDelay(
  models: ReadonlyMap<string, Survival>,
  op: Operation | undefined,
  now: number,
  maxGapMs: number
): number | undefined {
  const model = op && models.get(op.action);
  const created = Date.parse(op?.created_at ?? '');
  if (!model || !Number.isFinite(created)) return undefined;
  // Whole-second timestamps: on average the operation began half a second after its created_at.
  const since = /\.\d/.test(op.created_at) ? 0 : 500;
  const elapsed = Math.max(now - created - since, Date.parse(op.updated_at) - created || 0, 0);
  const left = model(elapsed);
  if (model.outlasted(elapsed)) return undefined;
  let horizon = maxGapMs;
  while (model(elapsed + horizon) > left * OUTLASTED && horizon < 3_600_000) horizon *= 2;
  // A grid of about 300 points on which `maxGapMs` falls.
  const step = maxGapMs / Math.ceil((maxGapMs * 300) / horizon);
  const grid = Array.from({ length: Math.ceil(horizon / step) + 1 }, (_, j) =>
    model(elapsed + j * step)
  );
  return checkPlan(grid, step, REQUEST_COST_MS, MIN_GAP_MS, maxGapMs)[0]! * step;
}

/** P(Z > z) for a standard normal (Abramowitz and Stegun 7.1.26, within 1.5e-7). */
function upperTail(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const poly =
    t * (0.2548296 + t * (-0.2844967 + t * (1.4214137 + t * (-1.453152 + t * 1.0614054))));
  const half = (poly * Math.exp(-x * x)) / 2;
  return z >= 0 ? half : 1 - half;
}
