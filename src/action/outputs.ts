import * as core from '@actions/core';
import type { Report } from '../report/model.js';
import { redact } from '../util/redact.js';
import { truncate } from '../util/text.js';

/** Longest text field of an operation in the JSON outputs: the API's texts are not ours to trust. */
const MAX_FIELD_CHARS = 4000;

/**
 * Sets every output. Called on every path, so later steps can always gate on them. A runner file
 * that cannot be written loses the outputs, never the verdict: the first failure is returned, for
 * the log to say, and the rest are still tried.
 */
export function setOutputs(report: Report, summary: string, commentUrl: string): Error | undefined {
  let failed: Error | undefined;
  const set = (name: string, value: string): void => {
    try {
      core.setOutput(name, redact(value));
    } catch (error) {
      failed ??= error as Error;
    }
  };
  const first = report.operations[0];
  set('status', report.status);
  set('timed_out', String(report.timedOut));
  set('operation', first ? JSON.stringify(first, bounded) : '');
  set('operations', JSON.stringify(report.operations, bounded));
  set(
    'failures_count',
    String(report.operations.reduce((sum, op) => sum + (Number(op.failures_count) || 0), 0))
  );
  set('elapsed_seconds', ((report.finishedAt - report.startedAt) / 1000).toFixed(1));
  set('project_id', report.projectId ?? '');
  set('summary', summary);
  set('comment_url', commentUrl);
  set('database_ready', report.database ? String(report.database.ready) : '');
  return failed;
}

/** Every long text shortened, whatever field holds it; other values as the API sent them. */
function bounded(_key: string, value: unknown): unknown {
  return typeof value === 'string' ? truncate(value, MAX_FIELD_CHARS) : value;
}
