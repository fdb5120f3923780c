import { resultFields, resultJson } from '../outputs.js';
import type { Report } from '../report/model.js';
import { formatDuration } from '../util/duration.js';
import { redact } from '../util/redact.js';
import { oneLine } from '../util/text.js';
import { WAIT_STATUS } from '../wait/status.js';

/** The exit code a script branches on (the help and docs/cli.md list them). */
export function exitCode(report: Report): number {
  if (report.status === WAIT_STATUS.inputError) return 2;
  if (report.status === WAIT_STATUS.apiError) return 3;
  if (report.status === WAIT_STATUS.aborted) return 130;
  if (report.timedOut) return apiDown(report) ? 3 : 124;
  return report.failure ? 1 : 0;
}

/** After a timeout, exit 3 when the failing request went unanswered since the wait's first half. */
const apiDown = ({ failingSince, startedAt, timeoutMs }: Report): boolean =>
  failingSince !== undefined && failingSince - startedAt <= timeoutMs / 2;

/** What stdout holds, whatever the ending: the verdict line, or with `--json` one object. */
export function resultText(report: Report, json: boolean, code = exitCode(report)): string {
  const elapsed = formatDuration(report.finishedAt - report.startedAt);
  const message = `${report.status} after ${elapsed}${report.failure ? `: ${report.failure}` : ''}`;
  const more = { exit_code: code, message, last_api_error: report.lastError ?? null };
  const text = json ? resultJson({ ...resultFields(report), ...more }) : oneLine(message, 2000);
  return `${redact(text)}\n`;
}
