import * as core from '@actions/core';
import * as state from './action/job-state.js';
import * as log from './action/log.js';
import { publish } from './action/publish.js';
import { type EngineSettings, runEngine } from './engine.js';
import { inputErrorReport, type MainVerdict, type Report } from './report/model.js';
import { readSettings, type Settings, summaryWanted } from './settings.js';
import { InputError } from './util/errors.js';

/** An input as the runner passed it, untrimmed: the settings decide what spaces mean. */
const input = (name: string): string => core.getInput(name, { trimWhitespace: false });

/** The main step; with `watch_job` it leaves the mark and its verdict for the post step. */
export async function run(signal: AbortSignal = new AbortController().signal): Promise<void> {
  state.saveMainVerdict(await runStep(signal));
}

/**
 * The post step (`post-if: always()`): with `watch_job`, every operation the job started since the
 * main step's mark, waited for within `timeout` from now and reported beside the main step's
 * verdict. Without a mark it sends no request (and warns when `watch_job` asked for one).
 */
export async function runPost(signal = new AbortController().signal): Promise<void> {
  const mark = state.savedJobMark();
  if (!mark) {
    // The main step ended before it learnt where the job began (its log says why).
    if (/^(true|True|TRUE)$/.test(input('watch_job').trim()))
      log.warning(
        'watch_job is true, but the main step left no mark of where the job began (it ended ' +
          'before the wait started, or GITHUB_STATE could not be written; see its log): ' +
          "the job's operations are not watched.",
        'watch_job has nothing to watch'
      );
    return;
  }
  const main = state.savedMainVerdict();
  const settings = {
    projectId: mark.projectId,
    operationIds: [],
    givenOperations: [],
    jobMark: mark,
    watchJob: false,
    // The main step listed the recent operations, and checked the database unless it only watched.
    ...(main && { databaseUrl: undefined }),
    summaryLimit: 0
  };
  await runStep(signal, { settings, main });
}

/** One step: inputs → engine → publish. An input error is published too, with no request sent. */
async function runStep(
  signal: AbortSignal,
  post?: { settings: Partial<EngineSettings>; main?: MainVerdict }
): Promise<Report> {
  const startedAt = Date.now();
  let settings: Settings | InputError;
  try {
    settings = readSettings(input, core.setSecret);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    settings = error;
  }
  const deps = { log, signal, onJobMark: state.saveJobMark };
  let report =
    settings instanceof InputError
      ? inputErrorReport(settings.message, startedAt, Date.now())
      : await runEngine({ ...settings, ...post?.settings }, deps);
  if (post) report = wholeJob({ ...report, waited: true }, post.main);
  await publish(
    settings instanceof InputError ? { summary: summaryWanted(input) } : settings,
    report,
    signal
  );
  return report;
}

/**
 * The job's report: what the post step saw, with the main step's verdict beside it. The headline
 * is the worse of the two; the post step fails only for what it saw (the main step already did).
 */
function wholeJob(report: Report, main: MainVerdict | undefined): Report {
  if (!main) return report; // none saved: the main step only set the mark (no ids to wait for)
  const status = report.failure || !main.failure ? report.status : main.status;
  return { ...report, status, mainStep: main };
}
