import { actionName, count, statusCounts, utc } from './display.js';
import { formatDuration } from '../util/duration.js';
import { capital } from '../util/text.js';
import { branchUrl, linkedCode, projectUrl } from './links.js';
import { code, escapeText } from './markdown.js';
import { type AwaitedOperation, isSeen } from '../neon/operation.js';
import type { BranchOutcome } from '../neon/branch-outcome.js';
import { BRANCH_WORDS } from './branch-words.js';
import type { SweepOutcome, SweepVerdict } from '../neon/branch-sweep.js';
import { reasonWords, VERDICT_WORDS } from './sweep-words.js';
import type { RequestOutcome } from '../neon/send.js';
import { modeWords } from '../wait/modes/index.js';
import { isKnownStatus } from '../neon/operation-status.js';
import { shownAs, statusLabel, statusMarker } from '../wait/status.js';
import { type MainEnding, type Report, serviceEnd, type TargetReport } from './model.js';
import { errorItem, operationsTable } from './table.js';
import { renderTimeline } from './timeline.js';
import { ACTION_NAME, ACTION_VERSION } from '../version.js';

/** GitHub refuses a step summary over 1 MiB; stay well under it. */
export const STEP_SUMMARY_LIMIT = 1_000_000;
/** GitHub refuses an issue comment over 65,536 characters; the marker needs a little room. */
export const COMMENT_LIMIT = 65_000;

const FULL_ERROR_CHARS = 300;
/** Failing operations listed on top; the rest are in the table below it. */
export const FAILING_LISTED = 10;

/** How much of the report is shown: cut down by `fit` until it fits. */
type Shape = { errorChars: number; recentRows: number; timeline: boolean };

type Medium = 'summary' | 'comment';

/** The job summary (also the `summary` output), at most `maxChars` bytes; API strings escaped. */
export function renderSummary(report: Report, maxChars = STEP_SUMMARY_LIMIT): string {
  return fit(report, maxChars, 'summary');
}

/** The PR comment: the summary's top, with the tables and the timeline folded in `<details>`. */
export function renderComment(report: Report, maxChars = COMMENT_LIMIT): string {
  return fit(report, maxChars, 'comment');
}

/** The least room a check's details are given; the rest of the report is cut down first. */
const MIN_DETAILS_BYTES = 1000;

/**
 * Renders smaller until it fits (cuts texts, recent rows, timeline, errors) and says what went.
 * The checks' details (the schema review) share the room the rest leaves.
 */
function fit(report: Report, maxChars: number, medium: Medium): string {
  const views = report.targets.map((target) => viewOf(target, report));
  const recentRows = Math.max(...views.map((view) => view.others.length));
  const shape = { errorChars: FULL_ERROR_CHARS, recentRows, timeline: true };
  const sized = report.targets.flatMap((t) => t.checks).filter((c) => c.details).length;
  for (;;) {
    const rest = sized > 0 ? Buffer.byteLength(render(report, views, shape, medium, 0)) : 0;
    // Each details block adds its text and a blank line.
    const room = sized > 0 ? Math.floor((maxChars - rest) / sized) - 2 : 0;
    const text = render(report, views, shape, medium, Math.max(room, MIN_DETAILS_BYTES));
    if (Buffer.byteLength(text) <= maxChars) return text;
    if (shape.errorChars > 80) shape.errorChars = 80;
    else if (shape.recentRows > 0) shape.recentRows = Math.floor(shape.recentRows / 2);
    else if (shape.timeline) shape.timeline = false;
    else if (shape.errorChars > 0) shape.errorChars = 0;
    else return cut(text, maxChars);
  }
}

/**
 * The operations a target lists, each once: the awaited ones, the other recent ones (`repeated`:
 * how many recent ones are awaited ones), and the failing ones (the first `listed` on top).
 */
type View = ReturnType<typeof viewOf>;
function viewOf(target: TargetReport, { policy }: Report) {
  const awaited = uniqueById(target.operations);
  const awaitedIds = new Set(awaited.map((op) => op.id));
  const recent = uniqueById(target.recent?.operations ?? []);
  const others = recent.filter((op) => !awaitedIds.has(op.id));
  const failing = awaited.filter((op) => isSeen(op) && shownAs(op.status, policy) === 'failure');
  const listed = failing.slice(0, FAILING_LISTED);
  return { target, awaited, others, repeated: recent.length - others.length, failing, listed };
}

function uniqueById(ops: readonly AwaitedOperation[]): AwaitedOperation[] {
  return ops.filter((op, i) => ops.findIndex((other) => other.id === op.id) === i);
}

/** `detailsBytes`: the room of each check's details (0: left out, to measure the rest). */
function render(
  report: Report,
  views: readonly View[],
  shape: Shape,
  medium: Medium,
  detailsBytes: number
): string {
  const lines = top(report, views, shape, detailsBytes);
  const details = body(report, views, shape, medium);
  if (medium === 'comment' && details.length > 0) {
    const title = detailsTitle(report, views, details);
    lines.push(`<details><summary>${title}</summary>`, '', ...details, '</details>', '');
  } else lines.push(...details);
  lines.push(`<sub>${utc(report.finishedAt)} · ${ACTION_NAME} ${ACTION_VERSION}</sub>`, '');
  return lines.join('\n');
}

function top(report: Report, views: readonly View[], shape: Shape, detailsBytes: number): string[] {
  const lines = [headline(report, views), ''];
  const quote = (text: string) => escapeText(text, Math.max(200, shape.errorChars * 4));
  if (report.mainStep) lines.push(mainStepLine(report.mainStep, quote), '');
  const links = report.consoleLinks;
  const status = report.status || 'unknown';
  const places = views.flatMap(({ target: { projectId, branchId, endpointId } }) => [
    projectId && `Project ${linkedCode(projectId, links && projectUrl(projectId))}`,
    branchId && `branch ${linkedCode(branchId, links && branchUrl(projectId, branchId))}`,
    endpointId && `compute ${code(endpointId)}`
  ]);
  const facts =
    status === 'input_error' && report.requests === 0
      ? ['No request was sent: an input needs fixing.']
      : [
          ...places,
          report.waited
            ? `timeout ${formatDuration(report.timeoutMs)}`
            : 'report only (wait: false)',
          count(report.requests, 'API request')
        ].filter(Boolean);
  lines.push(facts.join(' · '), '');
  // A wait that ended on an operation's status failed for the operations listed below; any other
  // failure (a timeout, the API, the inputs) is quoted.
  const explained = views.some((view) => view.failing.length > 0) && isKnownStatus(status);
  if (report.failure && !explained) lines.push(`> ${quote(report.failure)}`, '');
  const failing = views.flatMap((view) => {
    const items = view.listed.map((op) => errorItem(op, shape.errorChars));
    const more = view.failing.length - view.listed.length;
    return more > 0 ? [...items, `- and ${more} more in the table below`] : items;
  });
  if (failing.length > 0) lines.push(...failing, '');
  for (const { target, awaited } of views) {
    const { none } = modeWords(target.kind);
    if (none && awaited.length === 0 && !target.failure) lines.push(none, '');
  }
  if (report.request) lines.push(requestLine(report.request), '');
  for (const { target } of views)
    for (const check of target.checks) {
      if (check.line) lines.push(check.line, '');
      if (check.details && detailsBytes > 0) lines.push(check.details(detailsBytes));
    }
  return lines;
}

/** `Request POST /projects/p/branches: HTTP 201 after 3 attempts · locked 6.2s by apply_config 1f2e… on br-main since 12:00:01`. */
function requestLine(request: RequestOutcome): string {
  if (request.branch) return branchLine(request, request.branch);
  if (request.sweep) return sweepLines(request, request.sweep);
  const answer = request.status === undefined ? 'not accepted' : `HTTP ${request.status}`;
  const said = `Request ${code(`${request.method} ${request.path}`)}: ${answer} after ${count(request.attempts, 'attempt')}`;
  return [said, lockedBy(request)].filter(Boolean).join(' · ');
}

/** `locked 6.2s by apply_config 1f2e… on br-main since 12:00:01`, when 423 Locked answered. */
const lockedBy = ({ holders, lockedMs }: RequestOutcome): string =>
  holders.length > 0
    ? `locked ${formatDuration(lockedMs)} by ${escapeText(holders.join(', '))}`
    : '';

/**
 * `Created branch preview/pr-1 (br-…) from main · expires 2026-12-05T10:00:00Z · ready in 4.1s`, or
 * `Reused`, `Deleted`, `already gone` (`BRANCH_WORDS`): what a branch kind did, and the lock it met.
 */
function branchLine(request: RequestOutcome, branch: BranchOutcome): string {
  const named = code(branch.name) + (branch.id ? ` (${code(branch.id)})` : '');
  const from = branch.parentName ?? branch.parentId;
  const words = BRANCH_WORDS[branch.outcome];
  const what = `${words.summary(named)}${words.fromParent && from ? ` from ${code(from)}` : ''}`;
  const facts = [
    what,
    branch.expiresAt && `expires ${escapeText(branch.expiresAt)}`,
    branch.readyMs !== undefined && `ready in ${formatDuration(branch.readyMs)}`,
    lockedBy(request)
  ];
  return facts.filter(Boolean).join(' · ');
}

/**
 * `Swept preview/* · 40 deleted, 60 kept · 61 branches, limit 10`, then every matching branch with
 * what was done and why (`SWEEP_WORDS`): `- preview/pr-12: deleted: pull request #12 merged`.
 */
function sweepLines(request: RequestOutcome, sweep: SweepOutcome): string {
  const { entries } = sweep.plan;
  const order: readonly SweepVerdict[] = ['delete', 'would-delete', 'left-for-next-run', 'keep'];
  const counted = order.flatMap((verdict) => {
    const n = entries.filter((entry) => entry.verdict === verdict).length;
    return n > 0 ? [`${n} ${VERDICT_WORDS[verdict]}`] : [];
  });
  const limit = sweep.branchesLimit === undefined ? '' : ` of ${sweep.branchesLimit} allowed`;
  const facts = [
    `Swept ${code(sweep.pattern)}${sweep.dryRun ? ' (dry run)' : ''}`,
    entries.length === 0 ? 'no branch matches' : escapeText(counted.join(', ')),
    `${sweep.branchesCount} ${sweep.branchesCount === 1 ? 'branch' : 'branches'} now${limit}`,
    lockedBy(request)
  ];
  const items = entries.map(
    (entry) =>
      `- ${code(entry.branch.name)}: ${escapeText(VERDICT_WORDS[entry.verdict])}: ${escapeText(reasonWords(entry.reason))}`
  );
  return [facts.filter(Boolean).join(' · '), ...(items.length > 0 ? ['', ...items] : [])].join(
    '\n'
  );
}

/** `Main step: ❌ error · why`: the post step's report shows the whole job. */
function mainStepLine(main: MainEnding, quote: (text: string) => string): string {
  const why = main.failure ? ` · ${quote(main.failure)}` : '';
  return `Main step: ${statusMarker(main.status)} ${escapeText(statusLabel(main.status))}${why}`;
}

/**
 * `### ✅ Neon operations: finished · Create branch and Start compute in 5.7s`: the verdict, what
 * was awaited and how long it took, on one line (`### ✅ Neon project activity: idle after 12s`).
 */
function headline(report: Report, views: readonly View[]): string {
  const status = report.status || 'unknown';
  const words = modeWords(report.targets[0].kind);
  const verdict = `### ${statusMarker(status)} Neon ${words.subject}: ${escapeText(statusLabel(status))}`;
  if (status === 'input_error') return verdict;
  const took = formatDuration(report.finishedAt - report.startedAt);
  const succeeded =
    !words.awaitsPlace && ['success', 'skipped'].includes(shownAs(status, report.policy));
  const when = report.waited ? `${succeeded ? 'in' : 'after'} ${took}` : '(report only)';
  if (words.awaitsPlace) return `${verdict} ${when}`;
  const what = namesOf(views.flatMap((view) => view.awaited));
  return `${verdict} · ${what ? `${what} ` : ''}${when}`;
}

/** `Create branch and Start compute`, or `5 operations` when a list would not read at a glance. */
function namesOf(ops: readonly AwaitedOperation[]): string {
  const names = [...new Set(ops.map((op) => (op.action ? actionName(op.action) : '')))];
  if (ops.length === 0) return '';
  if (names.length > 3 || names.includes('') || names.length < ops.length)
    return count(ops.length, 'operation');
  const escaped = names.map((name) => escapeText(name, 60));
  return escaped.length === 1
    ? escaped[0]!
    : `${escaped.slice(0, -1).join(', ')} and ${escaped.at(-1)}`;
}

/** The tables, the timeline and the notes: in the summary as they are, in a comment folded. */
function body(report: Report, views: readonly View[], shape: Shape, medium: Medium): string[] {
  // Several targets: a section each, headed by its place.
  const heading = (view: View) => (views.length > 1 ? [`### ${placeOf(view.target)}`, ''] : []);
  const lines = views.flatMap((view) => [
    ...heading(view),
    ...targetBody(report, view, shape, medium)
  ]);
  const note = (text: string) => lines.push(`_${text}_`, '');
  if (shape.errorChars < FULL_ERROR_CHARS) {
    const how = shape.errorChars ? `shortened to ${shape.errorChars} characters` : 'left out';
    note(`Error texts were ${how} to keep this ${medium} within GitHub's size limit.`);
  }
  for (const { target } of views)
    if (target.recentError)
      note(`Recent operations could not be loaded: ${escapeText(target.recentError, 300)}`);
  return lines;
}

/** One target's tables, timeline and notes. */
function targetBody(report: Report, view: View, shape: Shape, medium: Medium): string[] {
  const lines: string[] = [];
  const { target, awaited, others, repeated } = view;
  const { recent } = target;
  const now = serviceEnd(report);
  const words = modeWords(target.kind);
  const tableOf = (ops: readonly AwaitedOperation[], errorsShown?: Set<string>, note?: string) => {
    const { consoleLinks } = report;
    const { projectId } = target;
    const options = { now, errorChars: shape.errorChars, projectId, consoleLinks, errorsShown };
    const table = operationsTable(ops, options);
    const above = capital([table.caption, note].filter(Boolean).join(' · '));
    const errors = table.errors.length > 0 ? ['', ...table.errors] : [];
    return [...(above ? [above, ''] : []), ...table.lines, ...errors, ''];
  };
  const note = (text: string) => lines.push(`_${text}_`, '');
  const toFit = `to keep this ${medium} within GitHub's size limit`;

  if (awaited.length > 0) {
    lines.push(`#### ${words.heading} (${escapeText(statusCounts(awaited))})`, '');
    lines.push(...tableOf(awaited, new Set(view.listed.map((op) => op.id))));
  }

  const shownOthers = others.slice(0, shape.recentRows);
  const timeline = shape.timeline
    ? renderTimeline(awaited, shownOthers, now, words.section, report.policy)
    : [];
  const title = 'Timeline (times in your time zone)';
  if (timeline.length > 0 && medium === 'comment') lines.push(`#### ${title}`, '', ...timeline, '');
  else if (timeline.length > 0)
    lines.push(`<details open><summary>${title}</summary>`, '', ...timeline, '', '</details>', '');

  if (recent && others.length > 0) {
    const heading =
      recent.since !== undefined ? `Operations since ${utc(recent.since)}` : 'Recent operations';
    lines.push(`#### ${heading} (${escapeText(statusCounts(others))})`, '');
    const notRepeated = `the ${repeated} awaited above ${repeated === 1 ? 'is' : 'are'} not repeated`;
    if (shownOthers.length > 0)
      lines.push(...tableOf(shownOthers, undefined, repeated ? notRepeated : ''));
    if (shownOthers.length < others.length)
      note(`${others.length - shownOthers.length} older rows were left out ${toFit}.`);
  } else if (recent) {
    lines.push('#### Recent operations', '', noRecent(target, recent.operations.length > 0), '');
  }
  if (recent?.scanStopped) {
    const place = target.endpointId ? 'compute' : 'branch';
    note(
      `Only the newest ${recent.scanned} operations of the project were scanned for this ${place}; older ones may exist.`
    );
  }
  return lines;
}

/** `Operations: 2 awaited · timeline · 8 recent`: what the folded part of a comment holds. */
function detailsTitle(report: Report, views: readonly View[], details: readonly string[]): string {
  const awaited = views.reduce((n, view) => n + view.awaited.length, 0);
  const others = views.reduce((n, view) => n + view.others.length, 0);
  const parts = [
    awaited > 0 ? `${awaited} ${modeWords(report.targets[0].kind).counted}` : '',
    details.includes('```mermaid') ? 'timeline' : '',
    others > 0 ? `${others} recent` : ''
  ].filter(Boolean);
  if (parts.length > 0) return `Operations: ${parts.join(' · ')}`;
  return views.some((view) => view.target.recent) ? 'Recent operations' : 'Notes';
}

/** Last resort: cut at a line boundary, close a fold left open, and say so. */
function cut(text: string, maxChars: number): string {
  const note = "\n\n_The rest of this report was cut to fit GitHub's size limit._\n";
  const close = '\n</details>\n';
  const room = maxChars - note.length - close.length;
  let end = Math.max(0, room - 16);
  while (end > 0 && Buffer.byteLength(text.slice(0, end)) > room) end = Math.floor(end * 0.9);
  const kept = text.slice(0, text.lastIndexOf('\n', end) + 1);
  const open = kept.split('<details').length - kept.split('</details>').length;
  return kept + (open > 0 ? close : '') + note;
}

/** `Compute ep-…`, `Branch br-…` or `Project p-…`: the place a target followed. */
function placeOf({ kind, projectId, branchId, endpointId }: TargetReport): string {
  if (endpointId) return `Compute ${code(endpointId)}`;
  if (branchId) return `Branch ${code(branchId)}`;
  return `${capital(modeWords(kind).subject)}${projectId ? ` of project ${code(projectId)}` : ''}`;
}

/** What the recent operations say when they list none: beside the awaited ones, or in the place followed. */
function noRecent(target: TargetReport, awaitedOnly: boolean): string {
  if (awaitedOnly) return 'None besides the awaited operations above.';
  if (target.endpointId) return 'None on this compute.';
  if (target.branchId) return 'None on this branch.';
  return 'None.';
}
