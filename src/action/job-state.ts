import * as core from '@actions/core';
import type { MainVerdict, Report } from '../report/model.js';
import { truncate } from '../util/text.js';
import { decodeMark, encodeMark } from '../wait/job.js';
import type { JobMark } from '../wait/mode.js';
import { WAIT_STATUS } from '../wait/status.js';
import * as log from './log.js';

/**
 * What the main step hands the post step, through the runner's state file (`core.saveState` in
 * the main step, `STATE_*` in the post step): that the main step ran, and with `watch_job` where
 * the job's operations begin and what the main step decided. A state file that cannot be written
 * (a directory, a full disk) costs `watch_job` only, with a warning: never the step's verdict.
 */
const MAIN_RAN = 'main_ran';
const JOB_MARK = 'job_mark';
const MAIN_VERDICT = 'main_verdict';
/** The main step's failure as the post step shows it: enough to read, small enough for the state file. */
const VERDICT_CHARS = 2000;

let unwritable = false;
/** The main step saved a mark: the post step will run, and wants the verdict too. */
let markSaved = false;

function save(name: string, value: string): boolean {
  if (unwritable) return false;
  try {
    core.saveState(name, value);
    return true;
  } catch (error) {
    unwritable = true;
    log.warning(
      `GITHUB_STATE cannot be written (${(error as Error).message}): this step's report is complete, ` +
        'but watch_job cannot hand the job to the post step, which will not know this step ran.',
      'watch_job unavailable'
    );
    return false;
  }
}

/** True in the post step: the main step of this action has run in this job. */
export function isPostStep(): boolean {
  return core.getState(MAIN_RAN) === 'true';
}

export function markMainStep(): void {
  save(MAIN_RAN, 'true');
}

export function saveJobMark(mark: JobMark): void {
  markSaved = save(JOB_MARK, encodeMark(mark));
}

/** The mark the main step saved; undefined without `watch_job` (the post step then does nothing). */
export function savedJobMark(): JobMark | undefined {
  return decodeMark(core.getState(JOB_MARK));
}

/** After the main step of `watch_job` reported: its verdict, for the post step's report of the job. */
export function saveMainVerdict(report: Report): void {
  if (!markSaved || report.status === WAIT_STATUS.watching) return;
  const verdict: MainVerdict = {
    status: truncate(report.status, 100),
    failure: report.failure ? truncate(report.failure, VERDICT_CHARS) : undefined
  };
  save(MAIN_VERDICT, JSON.stringify(verdict));
}

export function savedMainVerdict(): MainVerdict | undefined {
  try {
    const value = JSON.parse(core.getState(MAIN_VERDICT) || 'null') as Partial<MainVerdict> | null;
    if (typeof value?.status !== 'string') return undefined;
    return {
      status: value.status,
      failure: typeof value.failure === 'string' ? value.failure : undefined
    };
  } catch {
    return undefined;
  }
}
