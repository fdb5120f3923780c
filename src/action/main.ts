import * as core from '@actions/core';
import * as github from '@actions/github';
import { type EngineSettings, runEngine, runStep } from '../engine.js';
import type { Report } from '../report/model.js';
import { boolOrNot, readSettings } from '../settings.js';
import { actionNaming } from '../util/errors.js';
import * as state from './job-state.js';
import * as log from './log.js';
import { publish } from './publish.js';
import { pullRequestOf } from './comment.js';

/**
 * An input as the runner passed it, untrimmed: the settings decide what spaces mean. A sweep reads
 * the pull requests of the workflow's own repository (the command's `--repository`).
 */
export const input = (name: string): string =>
  name === 'repository'
    ? (process.env.GITHUB_REPOSITORY ?? '')
    : core.getInput(name, { trimWhitespace: false });

/** The main step; with `watch_job` it leaves the mark, its verdict and what to review for the post step. */
export async function run(signal: AbortSignal = new AbortController().signal): Promise<void> {
  state.startStep();
  const report = await runAction(signal);
  state.saveMainEnding(report);
  state.saveSchemaTarget(report);
}

/**
 * One step of the action: inputs → engine → publish (an input error is published too). The post
 * step passes its own settings over the inputs, and makes the job's report from what it saw.
 */
export async function runAction(
  signal: AbortSignal,
  post?: { settings: Partial<EngineSettings>; report: (seen: Report) => Report }
): Promise<Report> {
  const deps = {
    log,
    signal,
    onJobMark: state.saveJobMark,
    named: actionNaming,
    mask: core.setSecret
  };
  const { report, settings } = await runStep(
    () => ({ ...readSettings(input, core.setSecret, eventOf()), ...post?.settings }),
    actionNaming,
    (read) => runEngine(read, deps)
  );
  const shown = post ? post.report(report) : report;
  // A step whose inputs are wrong still gets a summary unless it was asked off.
  await publish(settings ?? { summary: boolOrNot(input, 'summary') !== false }, shown, signal);
  return shown;
}

/** The pull request the run is for (the event's), which a created branch's annotation names. */
function eventOf(): { pullRequest?: { number: number; repository: string } } {
  const number = pullRequestOf(github.context);
  // `context.repo` throws without GITHUB_REPOSITORY: read the variable it reads.
  const repository = process.env.GITHUB_REPOSITORY ?? '';
  return number !== undefined && repository ? { pullRequest: { number, repository } } : {};
}
