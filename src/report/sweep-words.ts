import { formatDuration } from '../util/duration.js';
import type { SweepEntry, SweepPlan, SweepReason, SweepVerdict } from '../neon/branch-sweep.js';

// A sweep's plan in words, one table for the summary, the PR comment, `--json`, JUnit and the
// `swept` output: "deleted: pull request #12 merged", "kept: protected".

/** What was done to a matching branch. */
export const VERDICT_WORDS: Readonly<Record<SweepVerdict, string>> = {
  delete: 'deleted',
  'would-delete': 'would delete (dry run)',
  'left-for-next-run': 'left for the next run (sweep_max reached)',
  keep: 'kept'
};

/** Why, in a few words. */
export function reasonWords(reason: SweepReason): string {
  switch (reason.kind) {
    case 'pull-request-merged':
      return `pull request #${reason.pr} merged`;
    case 'pull-request-closed':
      return `pull request #${reason.pr} closed`;
    case 'open-pull-request':
      return `open pull request #${reason.pr}`;
    case 'older-than':
    case 'newer-than': {
      const than = reason.kind === 'older-than' ? 'older' : 'newer';
      const since = reason.since === 'reset' ? 'last reset' : 'created';
      return `${than} than ${spanWords(reason.olderThanMs)} (${since} ${ageWords(reason.ageMs)} ago)`;
    }
    case 'default':
      return 'default branch';
    case 'protected':
      return 'protected';
    case 'has-children':
      return 'has child branches';
    case 'no-pull-request':
      if (reason.pr === undefined) return 'no pull request known, and no older_than';
      return reason.state === 'not-found'
        ? `pull request #${reason.pr} not found, and no older_than`
        : `pull request #${reason.pr} not read, and no older_than`;
  }
}

/** One branch's line: `preview/pr-12: deleted: pull request #12 merged`. */
export const sweepLine = (entry: SweepEntry): string =>
  `${entry.branch.name}: ${VERDICT_WORDS[entry.verdict]}: ${reasonWords(entry.reason)}`;

/** The `swept` output: the branches deleted (in a dry run, those it would delete), with why. */
export function sweptOf(plan: SweepPlan): Array<{ id: string; name: string; reason: string }> {
  const taken = plan.entries.filter((e) => e.verdict === 'delete' || e.verdict === 'would-delete');
  return sweepEntriesOf({ ...plan, entries: taken }).map(({ done, ...swept }) => swept);
}

/** The `sweep` field of `--json`: every matching branch, what was done and why. */
export function sweepEntriesOf(
  plan: SweepPlan
): Array<{ id: string; name: string; done: string; reason: string }> {
  return plan.entries.map((entry) => ({
    id: entry.branch.id,
    name: entry.branch.name,
    done: VERDICT_WORDS[entry.verdict],
    reason: reasonWords(entry.reason)
  }));
}

const DAY = 86_400_000;
const HOUR = 3_600_000;

/** An age as people say it, rounded down: `9d`, `5h`, `12m` (`0m` under a minute). */
export function ageWords(ms: number): string {
  if (ms >= DAY) return `${Math.floor(ms / DAY)}d`;
  if (ms >= HOUR) return `${Math.floor(ms / HOUR)}h`;
  return `${Math.floor(ms / 60_000)}m`;
}

/** `older_than` as given: whole days as `7d`, else as durations are shown (`36h`, `1h30m`). */
const spanWords = (ms: number): string => (ms % DAY === 0 ? `${ms / DAY}d` : formatDuration(ms));
