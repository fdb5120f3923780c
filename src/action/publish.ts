import * as core from '@actions/core';
import { OUTPUTS, outputText } from '../outputs.js';
import type { Report } from '../report/model.js';
import { escapeText } from '../report/markdown.js';
import { renderSummary } from '../report/summary.js';
import type { Settings } from '../settings.js';
import { formatDuration } from '../util/duration.js';
import { WAIT_STATUS } from '../wait/status.js';
import { writeComment } from './comment.js';
import * as log from './log.js';

/**
 * Summary, PR comment, outputs and the step's result (an input error publishes with `summary`
 * alone). A writer that fails (a full disk, GitHub refusing the comment) costs only what it writes.
 */
export async function publish(
  settings: Pick<Settings, 'summary'> & Partial<Settings>,
  report: Report,
  signal?: AbortSignal
): Promise<void> {
  // `watch_job` without ids: the post step writes the summary and the comment.
  const deferred = report.status === WAIT_STATUS.watching;
  const summary = settings.summary && !deferred ? safeSummary(report) : '';
  await writeSummary(summary);
  const commentUrl =
    settings.commentOnPr && !deferred && report.status !== WAIT_STATUS.aborted
      ? await writeComment(settings, report, signal)
      : '';
  setOutputs(report, summary, commentUrl);
  const took = formatDuration(report.finishedAt - report.startedAt);
  if (report.failure) log.fail(report.failure);
  else if (!deferred) log.info(`Result: ${report.status} after ${took}.`);
}

/**
 * Sets every output, on every path, so later steps can always gate on them. A runner file that
 * cannot be written loses the outputs, never the verdict: every output is tried, one warning said.
 */
function setOutputs(report: Report, summary: string, commentUrl: string): void {
  const published: Record<string, string> = { summary, comment_url: commentUrl };
  let failed: Error | undefined;
  for (const output of OUTPUTS) {
    try {
      const secret = output.secret?.(report);
      // The runner masks a secret output in the log (core.setSecret when the answer came).
      if (output.secret) core.setOutput(output.name, secret ?? '');
      else {
        // Redacted value by value (outputText, the summary's escaping), never as a rendered document.
        const text = published[output.name] ?? outputText(output, output.value?.(report));
        core.setOutput(output.name, text);
      }
    } catch (error) {
      failed ??= error as Error;
    }
  }
  if (failed) log.warning(`Could not set the outputs: ${failed.message}`, 'Outputs not written');
}

/** The summary, or if rendering it fails on data nobody foresaw, a short one that says so. */
function safeSummary(report: Report): string {
  try {
    return renderSummary(report);
  } catch (error) {
    log.warning(`Could not render the full summary: ${(error as Error).message}`);
    return `### Neon operations: ${escapeText(report.status)}\n\n${report.failure ? `> ${escapeText(report.failure, 2000)}\n\n` : ''}`;
  }
}

async function writeSummary(summary: string): Promise<void> {
  if (!summary) return;
  if (!process.env.GITHUB_STEP_SUMMARY)
    return log.debug('No GITHUB_STEP_SUMMARY file: summary not written.');
  await core.summary
    .addRaw(summary, true)
    .write()
    .catch((error: Error) =>
      log.warning(`Could not write the job summary: ${error.message}`, 'Summary not written')
    );
}
