// What the command prints on stdout, whatever the ending: the result in the format asked for
// (`--format`), and the exit code a script branches on.
import { FORMAT_CHOICES } from '../inputs.js';
import { resultFields, resultJson } from '../outputs.js';
import type { Report } from '../report/model.js';
import { formatDuration } from '../util/duration.js';
import { redact } from '../util/redact.js';
import { oneLine } from '../util/text.js';
import { WAIT_STATUS } from '../wait/status.js';

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
  if (r.timedOut) {
    // 3 when the failing request went unanswered since the wait's first half: the API was down.
    const apiDown = r.failingSince !== undefined && r.failingSince - r.startedAt <= r.timeoutMs / 2;
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
        last_api_error: report.lastError ?? null
      };
      // resultJson redacts each value: redacting the document would rewrite its keys.
      return `${resultJson({ ...resultFields(report), ...more })}\n`;
    },
    saysFailure: false
  }
} satisfies Record<Format, { render: (ending: Ending) => string; saysFailure: boolean }>;

/** What stdout holds: the result in `format`. */
export function resultText(
  report: Report,
  format: Format,
  code = exitCode(report),
  reasons: readonly string[] = []
): string {
  return FORMATS[format].render({ report, code, reasons });
}
