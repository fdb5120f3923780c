// What the command prints on stdout, whatever the ending: the result in the format asked for
// (`--format`), and the exit code a script branches on.
import { FORMAT_CHOICES } from '../inputs.js';
import { resultFields, resultJson } from '../outputs.js';
import { awaitedOperations, type Report, timedOut } from '../report/model.js';
import { sweepEntriesOf } from '../report/sweep-words.js';
import { formatDuration } from '../util/duration.js';
import { redact } from '../util/redact.js';
import { oneLine } from '../util/text.js';
import { shownAs, WAIT_STATUS } from '../wait/status.js';

export type Format = (typeof FORMAT_CHOICES)[number];

const CODES: Record<string, number> = {
  [WAIT_STATUS.inputError]: 2,
  [WAIT_STATUS.apiError]: 3,
  [WAIT_STATUS.unconfirmed]: 4,
  [WAIT_STATUS.aborted]: 130
};

/** The exit code a script branches on (the help and docs/cli.md list them). */
export function exitCode(r: Report): number {
  const listed = CODES[r.status];
  if (listed !== undefined) return listed;
  if (timedOut(r)) {
    // 3 when the failing request went unanswered since the wait's first half: the API was down.
    const apiDown = r.targets.some(
      ({ failingSince }) =>
        failingSince !== undefined && failingSince - r.startedAt <= r.timeoutMs / 2
    );
    if (apiDown) return 3;
    return 124;
  }
  if (r.failure) return 1;
  return 0;
}

/** How it ended, and why the exit code is not the verdict's (a report not written, a signal). */
export interface Ending {
  report: Report;
  code: number;
  reasons: readonly string[];
}

/** `finished after 2s`, `error after 4s: …`, `…; exit 2: /dev/full not written` */
export function verdict({ report, code, reasons }: Ending): string {
  const elapsed = formatDuration(report.finishedAt - report.startedAt);
  let message = `${report.status} after ${elapsed}${report.failure ? `: ${report.failure}` : ''}`;
  if (reasons.length > 0) message += `; exit ${code}: ${reasons.join(', ')}`;
  return message;
}

/**
 * Each format, by its name in `--format`: the verdict line, or one JSON object. `saysFailure`: the
 * text is read by eye, and says the failure itself (stderr must not say it again: a CI log merges
 * the two streams); a JSON object is read by a program, so stderr says the failure in words.
 */
export const FORMATS = {
  text: { render: (ending) => `${redact(oneLine(verdict(ending), 2000))}\n`, saysFailure: true },
  json: {
    render: (ending) => {
      const { report, code } = ending;
      const more = {
        exit_code: code,
        message: verdict(ending),
        last_api_error: report.targets.find((t) => t.lastError !== undefined)?.lastError ?? null,
        ...(report.request?.sweep && { sweep: sweepEntriesOf(report.request.sweep.plan) })
      };
      // resultJson redacts each value: redacting the document would rewrite its keys.
      return `${resultJson({ ...resultFields(report), ...more })}\n`;
    },
    saysFailure: false
  }
} satisfies Record<Format, { render: (ending: Ending) => string; saysFailure: boolean }>;

/**
 * After an accepted request, what an interruption or a timeout leaves behind: what the request made
 * (the answer's branch and endpoint) and the operations still running at Neon, which go on there
 * whatever the command does. Undefined when nothing was left.
 */
export function leftBehind(report: Report): string | undefined {
  const { request } = report;
  const cut = report.status === WAIT_STATUS.aborted || timedOut(report);
  if (!cut || request?.status === undefined) return undefined;
  const fields = resultFields(report);
  const made = (['branch', 'endpoint'] as const).flatMap((kind) => {
    const id = fields[`${kind}_id`];
    return typeof id === 'string' && id ? [`${kind} ${id}`] : [];
  });
  const running = awaitedOperations(report)
    .filter((op) => shownAs(op.status ?? '', report.policy) === 'pending')
    .map((op) => `${op.action ?? 'operation'} ${op.id} (${op.status ?? 'not seen yet'})`);
  const sent = `${request.method} ${request.path} was accepted`;
  const what = made.length ? `; its answer names ${made.join(' and ')}` : '';
  const still = running.length
    ? ` Still running at Neon, and going on there: ${running.join('; ')}.`
    : '';
  return oneLine(`Left behind: ${sent}${what}.${still}`, 2000);
}
