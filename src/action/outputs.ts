import * as core from '@actions/core';
import { resultFields, resultJson } from '../engine.js';
import type { Report } from '../report/model.js';
import { redact } from '../util/redact.js';

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
  const result = resultFields(report);
  set('status', result.status);
  set('timed_out', String(result.timed_out));
  set('operation', result.operation ? resultJson(result.operation) : '');
  set('operations', resultJson(result.operations));
  set('failures_count', String(result.failures_count));
  set('elapsed_seconds', result.elapsed_seconds.toFixed(1));
  set('project_id', result.project_id);
  set('summary', summary);
  set('comment_url', commentUrl);
  set('database_ready', result.database_ready === undefined ? '' : String(result.database_ready));
  return failed;
}
