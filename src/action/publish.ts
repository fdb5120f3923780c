import * as core from '@actions/core';
import { resultFields, resultJson } from '../engine.js';
import type { Report } from '../report/model.js';
import { escapeText } from '../report/markdown.js';
import { renderSummary } from '../report/summary.js';
import type { Settings } from '../settings.js';
import { formatDuration } from '../util/duration.js';
import { redact } from '../util/redact.js';
import { WAIT_STATUS } from '../wait/status.js';
import { writeComment } from './comment.js';
import * as log from './log.js';

/**
 * Summary, PR comment, outputs and the step's result, from whatever the run saw (an input error
 * publishes with `summary` alone). Each writer may fail (a full disk, a broken runner file, GitHub
 * refusing the comment); the verdict is still logged and the step's result still matches it.
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
  const comment = { token: settings.githubToken ?? '', tag: settings.commentTag ?? '' };
  const commentUrl =
    settings.commentOnPr && !deferred && report.status !== WAIT_STATUS.aborted
      ? await writeComment(comment, report, signal)
      : '';
  const outputError = setOutputs(report, summary, commentUrl);
  if (outputError)
    log.warning(`Could not set the outputs: ${outputError.message}`, 'Outputs not written');
  if (report.failure) log.fail(report.failure);
  else if (!deferred)
    log.info(
      `Result: ${report.status} after ${formatDuration(report.finishedAt - report.startedAt)}.`
    );
}

/**
 * Sets every output, on every path, so later steps can always gate on them. A runner file that
 * cannot be written loses the outputs, never the verdict: the first failure is returned for the
 * log to say, and the rest are still tried.
 */
function setOutputs(report: Report, summary: string, commentUrl: string): Error | undefined {
  const { operation, operations, elapsed_seconds, database_ready, ...rest } = resultFields(report);
  const outputs = {
    ...rest,
    operation: operation ? resultJson(operation) : '',
    operations: resultJson(operations),
    elapsed_seconds: elapsed_seconds.toFixed(1),
    summary,
    comment_url: commentUrl,
    database_ready: database_ready ?? ''
  };
  let failed: Error | undefined;
  for (const [name, value] of Object.entries(outputs)) {
    try {
      core.setOutput(name, redact(String(value)));
    } catch (error) {
      failed ??= error as Error;
    }
  }
  return failed;
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
    .addRaw(redact(summary), true)
    .write()
    .catch((error: Error) => {
      core.summary.emptyBuffer();
      log.warning(`Could not write the job summary: ${error.message}`, 'Summary not written');
    });
}
