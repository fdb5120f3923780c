import type { BranchOutcome } from '../neon/branch-outcome.js';
import { BRANCH_WORDS } from '../report/branch-words.js';
import { sweepLine } from '../report/sweep-words.js';
import { type AwaitedOperation, isSeen } from '../neon/operation.js';
import type { CaseVerdict, TestCase } from '../report/check-outcome.js';
import { type Report, serviceEnd, type TargetReport } from '../report/model.js';
import { formatDuration } from '../util/duration.js';
import { redact } from '../util/redact.js';
import { oneLine, truncate } from '../util/text.js';
import { shownAs, WAIT_STATUS } from '../wait/status.js';

/**
 * The report as JUnit XML (GitLab, Jenkins, CircleCI): a suite per target, with a case per awaited
 * operation, one per check that has one (the database), one `error` when the run failed otherwise.
 * Names stay the same from run to run (the action and its rank); the ids are properties,
 * `classname` carries the project. Written by hand: a few fixed elements need only escaping (`xml`).
 */
export function renderJunit(report: Report): string {
  const suites = report.targets.map((target, i) => ({ target, cases: casesOf(report, target, i) }));
  const all = suites.flatMap((suite) => suite.cases);
  const time = seconds(report.finishedAt - report.startedAt);
  const totals = (cases: readonly TestCase[]) => {
    const count = (kind: string): number => cases.filter((c) => c.verdict[0] === kind).length;
    return `tests="${cases.length}" failures="${count('failure')}" errors="${count('error')}" skipped="${count('skipped')}" time="${time}"`;
  };
  const timestamp = new Date(report.startedAt).toISOString();
  return [
    `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="neon-operations-wait" ${totals(all)}>`,
    ...suites.flatMap(({ target, cases }) => {
      const project = target.projectId ?? '';
      return [
        `  <testsuite name="Neon operations${project && ` of project ${xml(project)}`}" ${totals(cases)} timestamp="${timestamp}">`,
        ...cases.map((c) => caseXml(c, project)),
        '  </testsuite>'
      ];
    }),
    '</testsuites>\n'
  ].join('\n');
}

/** One target's cases: its operations, the request's branch (in the first), its checks, its ending. */
function casesOf(report: Report, target: TargetReport, index: number): TestCase[] {
  const { status, failure, lastError } = target;
  const cases: TestCase[] = target.operations.map((op) => ({
    name: caseName(op),
    ms: wallTime(op, report),
    verdict: testCaseOf(report, target, op),
    properties: { operation_id: op.id, branch_id: op.branch_id, endpoint_id: op.endpoint_id }
  }));
  // create_branch, delete_branch: one case named `branch` (the same in every pull request), its
  // name and id as properties, what was done in its output.
  const branch = report.request?.branch;
  if (branch && index === 0) {
    cases.unshift({
      name: 'branch',
      ms: branch.readyMs ?? 0,
      verdict: [],
      properties: { branch_name: branch.name, branch_id: branch.id },
      out: branchDone(branch)
    });
  }
  // sweep_branches: a passing case for each branch the pattern matched, what was done and why in its output.
  const sweep = report.request?.sweep;
  if (sweep && index === 0)
    cases.unshift(
      ...sweep.plan.entries.map((entry): TestCase => ({
        name: `sweep ${entry.branch.name}`,
        ms: 0,
        verdict: [],
        properties: { branch_name: entry.branch.name, branch_id: entry.branch.id },
        out: sweepLine(entry)
      }))
    );
  for (const check of target.checks) if (check.junit) cases.push({ ...check.junit });
  const ended = [WAIT_STATUS.inputError, WAIT_STATUS.apiError, WAIT_STATUS.aborted] as string[];
  // A target that fails never writes an all-green suite (`unconfirmed`, a `database_error` with no
  // database to try): the wait itself is then the case that says why.
  const unsaid =
    failure !== undefined &&
    !cases.some(({ verdict: [kind] }) => kind === 'failure' || kind === 'error');
  if (ended.includes(status) || (target.timedOut && lastError) || unsaid) {
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
  return cases;
}

function caseXml(testCase: TestCase, project: string): string {
  const { name, ms, verdict, properties = {}, out } = testCase;
  const [kind, message = '', type, detail] = verdict;
  const head = `    <testcase classname="neon-operations-wait${project && `.${xml(project)}`}" name="${xml(name)}" time="${seconds(ms)}">`;
  const inner = propertiesXml(properties);
  if (kind) {
    // The detail may be the API's text: cut.
    const body = detail ? `>${xml(detail, 4000)}</${kind}>` : '/>';
    const attrs = `${type ? ` type="${xml(type)}"` : ''} message="${xml(oneLine(message, 200))}"`;
    inner.push(`      <${kind}${attrs}${body}`);
  }
  if (out) inner.push(`      <system-out>${xml(out, 1000)}</system-out>`);
  if (!inner.length) return `${head.slice(0, -1)}/>`;
  return [head, ...inner, '    </testcase>'].join('\n');
}

/** `created from main (br-…), expires 2026-12-05T10:00:00Z`, `reused …`, `deleted`, `already gone`. */
function branchDone(branch: BranchOutcome): string {
  const words = BRANCH_WORDS[branch.outcome];
  if (!words.fromParent) return `${branch.id ?? branch.name}: ${words.junit}`;
  const from = branch.parentName ?? branch.parentId;
  const expires = branch.expiresAt ? `, expires ${branch.expiresAt}` : '';
  return `${branch.id}: ${words.junit}${from ? ` from ${from}` : ''}${expires}`;
}

/**
 * `create_branch`: what stays the same from run to run (a branch per pull request changes every
 * id), ranked in the run's order when two share it; the ids are the case's properties. Cut short
 * enough that a rank (` #2`) still fits in `xml`'s 200 characters.
 */
function caseName(op: AwaitedOperation): string {
  return truncate(op.action || 'operation', 180);
}

/** `<properties>` of a case: the ids that name it in this run only (none given, none written). */
function propertiesXml(properties: Record<string, string | undefined>): string[] {
  const given = Object.entries(properties).filter(([, value]) => value);
  if (!given.length) return [];
  return [
    '      <properties>',
    ...given.map(
      ([name, value = '']) => `        <property name="${name}" value="${xml(value)}"/>`
    ),
    '      </properties>'
  ];
}

function testCaseOf(report: Report, target: TargetReport, op: AwaitedOperation): CaseVerdict {
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
  if (target.timedOut) return ['failure', 'timed out', WAIT_STATUS.timeout, deadline];
  return ['skipped', `still ${status} when the wait ended (${target.status})`];
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
