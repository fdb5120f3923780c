import type { Operation } from '../neon/operation.js';
import type { Report } from '../report/model.js';
import { formatDuration } from '../util/duration.js';
import { redact } from '../util/redact.js';
import { outcomeOf } from '../wait/status.js';

/** A test case as JUnit writes it: passed (nothing), `<skipped>` (why), or `<failure>` (type and text). */
type TestCase = { skip?: string; failure?: [type: string, text: string] };

/**
 * The report as JUnit XML, which GitLab, Jenkins, CircleCI, Buildkite and Azure DevOps display:
 * one test case per awaited operation, and one for the database when asked. Written by hand: a few
 * fixed elements need no XML library, only careful escaping (`xml`).
 */
export function renderJunit(report: Report): string {
  const cases: Array<[string, TestCase, number?]> = report.operations.map((op) => [
    `${op.action ?? 'operation'} ${op.id}`,
    testCaseOf(report, op),
    op.total_duration_ms
  ]);
  const db = report.database;
  if (db) {
    const failure: TestCase['failure'] = [
      report.status,
      db.problem ?? report.failure ?? 'not ready'
    ];
    const skip = db.notTried && `not tried: ${db.notTried}`;
    cases.push([`database ${db.target}`, db.ready ? {} : skip ? { skip } : { failure }]);
  }
  const count = (key: keyof TestCase): number => cases.filter(([, o]) => o[key]).length;
  const totals = `tests="${cases.length}" failures="${count('failure')}" errors="0" skipped="${count('skip')}" time="${seconds(report.finishedAt - report.startedAt)}"`;
  const suite = `Neon operations${report.projectId ? ` of project ${report.projectId}` : ''}`;
  return [
    `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="neon-operations-wait" ${totals}>`,
    `  <testsuite name="${xml(suite)}" ${totals} timestamp="${new Date(report.startedAt).toISOString()}">`,
    ...cases.map(([name, { skip, failure }, ms]) => {
      const [type, text] = (failure ?? []).map(xml);
      const inner = failure
        ? `<failure type="${type}" message="${text}">${text}</failure>`
        : skip && `<skipped message="${xml(skip)}"/>`;
      const head = `    <testcase classname="neon-operations-wait" name="${xml(name)}" time="${seconds(ms ?? 0)}"`;
      return inner ? `${head}>\n      ${inner}\n    </testcase>` : `${head}/>`;
    }),
    '  </testsuite>\n</testsuites>\n'
  ].join('\n');
}

function testCaseOf(report: Report, op: Operation): TestCase {
  const status = op.status ?? 'not seen';
  const outcome = outcomeOf(status);
  if (outcome === 'skipped') return { skip: 'skipped by the control plane' };
  if (outcome === 'passed') return {};
  if (outcome === 'failed') {
    const failures = op.failures_count ? ` (failures_count ${op.failures_count})` : '';
    return { failure: [status, `${status}${failures}: ${op.error ?? 'no error text'}`] };
  }
  if (!report.waited) return { skip: `not awaited (--no-wait); it was ${status}` };
  if (report.timedOut) {
    const text = `still ${status} at the deadline (timeout ${formatDuration(report.timeoutMs)})`;
    return { failure: ['timeout', text] };
  }
  return { failure: [report.status, `${status} when the wait ended: ${report.failure ?? ''}`] };
}

const seconds = (ms: number): string => (Math.max(0, Number(ms) || 0) / 1000).toFixed(3);

/**
 * Text for XML: markup, tabs and line breaks as references (an attribute would fold the latter), and
 * what XML 1.0 cannot carry (control characters, lone surrogates, U+FFFE/U+FFFF) as U+FFFD.
 */
export function xml(text: string): string {
  return redact(text)
    .replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD')
    .replace(/[&<>"'\t\n\r]/g, (c) => `&#${c.charCodeAt(0)};`);
}
