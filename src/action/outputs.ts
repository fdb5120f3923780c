import { setOutput } from './runner.js';
import { redact } from '../util/redact.js';
import type { Report } from '../report/model.js';

/** Sets every output. Called on every path, so later steps can always gate on them. */
export function setOutputs(report: Report, summary: string, commentUrl: string): void {
  const first = report.operations[0];
  const set = (name: string, value: string): void => setOutput(name, redact(value));
  set('status', report.status);
  set('timed_out', String(report.timedOut));
  set('operation', first ? JSON.stringify(first) : '');
  set('operations', JSON.stringify(report.operations));
  set(
    'failures_count',
    String(report.operations.reduce((sum, op) => sum + (Number(op.failures_count) || 0), 0))
  );
  set('elapsed_seconds', ((report.finishedAt - report.startedAt) / 1000).toFixed(1));
  set('project_id', report.projectId ?? '');
  set('summary', summary);
  set('comment_url', commentUrl);
}
