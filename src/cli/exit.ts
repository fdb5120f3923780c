import { resultFields, resultJson } from '../engine.js';
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

/**
 * A timeout is the API's fault (exit 3) when the request failing at the deadline had been failing
 * since the first half of the wait: one 503 in its last second leaves it a timeout (124).
 */
const apiDown = ({ failingSince, startedAt, timeoutMs }: Report): boolean =>
  failingSince !== undefined && failingSince - startedAt <= timeoutMs / 2;

/** What stdout holds, whatever the ending: the verdict line, or with `--json` one object. */
export function resultText(report: Report, json: boolean): string {
  const elapsed = formatDuration(report.finishedAt - report.startedAt);
  const message = `${report.status} after ${elapsed}${report.failure ? `: ${report.failure}` : ''}`;
  const result = json
    ? resultJson({
        ...resultFields(report),
        exit_code: exitCode(report),
        message,
        last_api_error: report.lastError ?? null
      })
    : oneLine(message, 2000);
  return `${redact(result)}\n`;
}
