import * as core from '@actions/core';
import { decodeMark, encodeMark } from '../wait/job.js';
import type { JobMark } from '../wait/mode.js';

/**
 * What the main step hands the post step, through the runner's state file (`core.saveState` in
 * the main step, `STATE_*` in the post step): that the main step ran, and with `watch_job` where
 * the job's operations begin.
 */
const MAIN_RAN = 'main_ran';
const JOB_MARK = 'job_mark';

/** True in the post step: the main step of this action has run in this job. */
export function isPostStep(): boolean {
  return core.getState(MAIN_RAN) === 'true';
}

export function markMainStep(): void {
  core.saveState(MAIN_RAN, 'true');
}

export function saveJobMark(mark: JobMark): void {
  core.saveState(JOB_MARK, encodeMark(mark));
}

/** The mark the main step saved; undefined without `watch_job` (the post step then does nothing). */
export function savedJobMark(): JobMark | undefined {
  return decodeMark(core.getState(JOB_MARK));
}
