import { checkPlan } from '../src/wait/history.js';

/**
 * Operation lengths to compare schedules on (see the polling study): (b) a log-normal fitted to the
 * public figures, (c) a mixture of quick, slow and very slow ones, and the benchmark's own lengths.
 * Each draws a length in ms from a uniform random source.
 */
export interface Lengths {
  name: string;
  draw(random: () => number): number;
}

function normal(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

const logNormal = (medianMs: number, sigma: number) => (random: () => number) =>
  medianMs * Math.exp(sigma * normal(random));

export const DIST_B: Lengths = { name: '(b) log-normal, median 2.9 s', draw: logNormal(2900, 0.7) };

export const DIST_C: Lengths = {
  name: '(c) 85% ~1.8 s, 12% ~8 s, 3% ~60 s',
  draw: (random) => {
    const u = random();
    return logNormal(u < 0.85 ? 1800 : u < 0.97 ? 8000 : 60_000, 0.25)(random);
  }
};

/** The benchmark's own lengths: `seconds` ± 10%. */
export const around = (seconds: number): Lengths => ({
  name: `~${seconds} s`,
  draw: (random) => seconds * 1000 * (0.9 + 0.2 * random())
});

/** The same lengths, `factor` times as long (a history that is wrong). */
export const scaled = (lengths: Lengths, factor: number): Lengths => ({
  name: `${lengths.name} × ${factor}`,
  draw: (random) => factor * lengths.draw(random)
});

export interface FrontierPoint {
  requests: number;
  delayMs: number;
}

/**
 * The best trade-off any schedule can make between requests and mean notice delay when the lengths'
 * distribution is known exactly: Barlow, Hunter and Proschan's dynamic program (the one the action
 * uses on its history) on `samples` (ms from the wait's start, the look at 0 free), for a sweep of
 * prices per request, each point exact on those samples.
 */
export function frontier(samples: readonly number[]): FrontierPoint[] {
  const sorted = [...samples].sort((a, b) => a - b);
  const horizon = (sorted.at(-1) as number) + 1;
  const step = Math.max(10, horizon / 3000);
  const n = Math.ceil(horizon / step);
  const above = (t: number): number => {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((sorted[mid] as number) <= t) lo = mid + 1;
      else hi = mid;
    }
    return sorted.length - lo;
  };
  const survivalAt = Array.from({ length: n + 1 }, (_, j) => above(j * step) / sorted.length);
  const points: FrontierPoint[] = [];
  for (let cost = 5; cost < 60_000; cost *= 1.4) {
    const next = checkPlan(survivalAt, step, cost, [step, horizon]);
    const checks: number[] = [];
    for (let j = 0; j < n; j = next[j] as number) checks.push((next[j] as number) * step);
    let requests = 0;
    let delay = 0;
    let k = 0;
    for (const length of sorted) {
      while ((checks[k] as number) < length) k++;
      requests += k + 1;
      delay += (checks[k] as number) - length;
    }
    points.push({ requests: requests / sorted.length, delayMs: delay / sorted.length });
  }
  return points;
}

/** The least mean delay the frontier reaches with `requests` on average (between its points). */
export function bestDelayAt(points: readonly FrontierPoint[], requests: number): number {
  const sorted = [...points].sort((a, b) => a.requests - b.requests);
  let best = Infinity;
  for (let i = 0; i < sorted.length; i++) {
    const a = sorted[i] as FrontierPoint;
    if (a.requests <= requests) best = Math.min(best, a.delayMs);
    for (const b of sorted.slice(i + 1)) {
      if (a.requests <= requests && b.requests >= requests && b.requests > a.requests) {
        const f = (requests - a.requests) / (b.requests - a.requests);
        best = Math.min(best, a.delayMs + f * (b.delayMs - a.delayMs));
      }
    }
  }
  return best;
}
