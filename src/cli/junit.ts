import type { BranchOutcome } from '../neon/branches.js';
import { type AwaitedOperation, isSeen } from '../neon/operation.js';
import { type Report, serviceEnd } from '../report/model.js';
import { formatDuration } from '../util/duration.js';
import { redact } from '../util/redact.js';
import { oneLine, truncate } from '../util/text.js';
import { shownAs, WAIT_STATUS } from '../wait/status.js';

/** What JUnit says of a case: passed (empty), or a kind, a short message, a type and the detail (GitLab shows the last). */
type CaseVerdict =
  [] | [kind: 'failure' | 'error' | 'skipped', message: string, type?: string, detail?: string];

/**
 * The report as JUnit XML (GitLab, Jenkins, CircleCI): a case per awaited operation, one for the
 * database, one `error` when the run failed. Names stay the same from run to run; `classname`
 * carries the project. Written by hand: a few fixed elements need only escaping (`xml`).
 */
export function renderJunit(report: Report): string {
  const { status, failure, lastError, database: db } = report;
  const cases: Array<{ name: string; ms: number; verdict: CaseVerdict; out?: string }> =
    report.operations.map((op) => ({
      name: caseName(op),
      ms: wallTime(op, report),
      verdict: testCaseOf(report, op)
    }));
  // create_branch, delete_branch: a case named by the branch (the same on a rerun), what was done in its output.
  const branch = report.request?.branch;
  if (branch) {
    const done = branchDone(branch);
    cases.unshift({
      name: `branch ${branch.name}`,
      ms: branch.readyMs ?? 0,
      verdict: [],
      out: done
    });
  }
  if (db) {
    const why = report.timedOut ? WAIT_STATUS.timeout : WAIT_STATUS.databaseError;
    const verdict: CaseVerdict = db.ready
      ? []
      : db.notTried
        ? ['skipped', `not tried: ${db.notTried}`]
        : ['failure', 'database not ready', why, db.problem];
    cases.push({ name: `database ${db.target}`, ms: db.answeredAfterMs ?? 0, verdict });
  }
  const ended = [WAIT_STATUS.inputError, WAIT_STATUS.apiError, WAIT_STATUS.aborted] as string[];
  if (ended.includes(status) || (report.timedOut && lastError)) {
    const verdict: CaseVerdict = ['error', status.replace('_', ' '), status, failure ?? lastError];
    cases.push({ name: 'wait', ms: 0, verdict });
  }
  // An idle project or branch: one passing case, as Jenkins fails a build on an empty suite.
  if (cases.length === 0) cases.push({ name: 'wait', ms: 0, verdict: [] });
  // Two of a name in one run (two computes started on one branch) are told apart by their rank.
  const names = cases.map((c) => c.name);
  cases.forEach((c, i) => {
    const rank = names.slice(0, i).filter((n) => n === names[i]).length + 1;
    if (rank > 1) c.name += ` #${rank}`;
  });
  const count = (kind: string): number => cases.filter((c) => c.verdict[0] === kind).length;
  const totals = `tests="${cases.length}" failures="${count('failure')}" errors="${count('error')}" skipped="${count('skipped')}" time="${seconds(report.finishedAt - report.startedAt)}"`;
  const project = report.projectId ?? '';
  return [
    `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="neon-operations-wait" ${totals}>`,
    `  <testsuite name="Neon operations${project && ` of project ${xml(project)}`}" ${totals} timestamp="${new Date(report.startedAt).toISOString()}">`,
    ...cases.map(({ name, ms, verdict: [kind, message = '', type, detail], out }) => {
      const head = `    <testcase classname="neon-operations-wait${project && `.${xml(project)}`}" name="${xml(name)}" time="${seconds(ms)}"`;
      if (!kind && out)
        return `${head}>\n      <system-out>${xml(out, 1000)}</system-out>\n    </testcase>`;
      if (!kind) return `${head}/>`;
      // The detail may be the API's text: cut.
      const body = detail ? `>${xml(detail, 4000)}</${kind}>` : '/>';
      const attrs = `${type ? ` type="${xml(type)}"` : ''} message="${xml(oneLine(message, 200))}"`;
      return `${head}>\n      <${kind}${attrs}${body}\n    </testcase>`;
    }),
    '  </testsuite>\n</testsuites>\n'
  ].join('\n');
}

/** `created from main (br-…), expires 2026-12-05T10:00:00Z`, `reused …`, `deleted`, `already gone`. */
function branchDone(branch: BranchOutcome): string {
  if (branch.deleted !== undefined)
    return `${branch.id}: ${branch.deleted ? 'deleted' : 'already gone'}`;
  const from = branch.parentName ?? branch.parentId;
  const expires = branch.expiresAt ? `, expires ${branch.expiresAt}` : '';
  return `${branch.id}: ${branch.created ? 'created' : 'reused'}${from ? ` from ${from}` : ''}${expires}`;
}

/**
 * `create_branch br-… ep-…`, or by its id when the API described nothing (never ""), cut short
 * enough that a rank (` #2`) still fits in `xml`'s 200 characters.
 */
function caseName(op: AwaitedOperation): string {
  const described = [op.action, op.branch_id, op.endpoint_id].filter(Boolean).join(' ');
  return truncate(described || `operation ${op.id}`, 180);
}

function testCaseOf(report: Report, op: AwaitedOperation): CaseVerdict {
  const status = op.status ?? 'not seen';
  const shown = shownAs(status, report.policy);
  if (shown === 'skipped' && status === 'skipped')
    return ['skipped', 'skipped by the control plane'];
  if (shown === 'skipped')
    return ['skipped', `${status}, which fail_on does not count as a failure`];
  if (shown === 'success') return [];
  const failures = op.failures_count ? ` (failures_count ${op.failures_count})` : '';
  const own = `operation ${op.id}: ${op.error ?? 'no error text'}`;
  if (shown === 'failure') return ['failure', `${status}${failures}`, status, own];
  if (!report.waited) return ['skipped', `not awaited (--no-wait); it was ${status}`];
  // Still open: at the deadline it is what timed out; else another's ending cut it short.
  const deadline = `still ${status} at the deadline (timeout ${formatDuration(report.timeoutMs)})`;
  if (report.timedOut) return ['failure', 'timed out', WAIT_STATUS.timeout, deadline];
  return ['skipped', `still ${status} when the wait ended (${report.status})`];
}

/** From created_at to updated_at once it ended, else to the end of the wait. */
function wallTime(op: AwaitedOperation, report: Report): number {
  if (!isSeen(op)) return 0;
  const open = shownAs(op.status, report.policy) === 'pending';
  const end = open ? serviceEnd(report) : Date.parse(op.updated_at);
  return end - Date.parse(op.created_at);
}

const seconds = (ms: number): string => (Math.max(0, Number(ms) || 0) / 1000).toFixed(3);

/**
 * Text for XML: redacted and cut to `max` characters before escaping (the API's texts, names
 * included, are not ours to trust), markup, tabs and line breaks as references (an attribute would
 * fold the latter), and what XML 1.0 cannot carry (control characters, lone surrogates,
 * U+FFFE/U+FFFF) as U+FFFD.
 */
export function xml(text: string, max = 200): string {
  return truncate(redact(text), max)
    .replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD')
    .replace(/[&<>"'\t\n\r]/g, (c) => `&#${c.charCodeAt(0)};`);
}
