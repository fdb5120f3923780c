import * as core from '@actions/core';
import type { SchemaTarget } from '../checks/compare-schema.js';
import { checkFacts, type MainEnding, type Report } from '../report/model.js';
import { fieldsOf, textOf } from '../util/json-fields.js';
import { truncate } from '../util/text.js';
import { decodeMark, encodeMark } from '../wait/job-mark.js';
import type { JobMark } from '../wait/job-mark.js';
import { WAIT_STATUS } from '../wait/status.js';
import * as log from './log.js';

// What the main step hands the post step through the runner's state file, with `watch_job`: where
// the job's operations begin and what it decided. A state file that cannot be written (a directory,
// a full disk) costs watch_job only, with a warning, never the verdict.
const KEY = { mark: 'job_mark', verdict: 'main_verdict', schema: 'schema_target' };

let unwritable = false;
/** A mark was saved: the post step will watch the job, and shows this step's verdict too. */
let markSaved = false;

/** A step starts with nothing saved: a process runs one step, the tests run several in one. */
export function startStep(): void {
  unwritable = false;
  markSaved = false;
}

function save(name: string, value: string): boolean {
  try {
    if (!unwritable) core.saveState(name, value);
  } catch (error) {
    unwritable = true;
    log.warning(
      `GITHUB_STATE cannot be written (${(error as Error).message}). This step reports as usual, but ` +
        'the post step cannot learn where the job began: watch_job cannot follow the job.',
      'watch_job unavailable'
    );
  }
  return !unwritable;
}

export function saveJobMark(mark: JobMark): void {
  markSaved = save(KEY.mark, encodeMark(mark));
}

/** The mark the main step saved; undefined without `watch_job` (the post step then does nothing). */
export const savedJobMark = (): JobMark | undefined => decodeMark(core.getState(KEY.mark));

/** The main step's verdict, bounded, once it reported (with `watch_job` and ids to wait for). */
export function saveMainEnding(report: Report): void {
  if (!markSaved || report.status === WAIT_STATUS.watching) return;
  const failure = report.failure && truncate(report.failure, 2000);
  save(KEY.verdict, JSON.stringify({ status: truncate(report.status, 100), failure }));
}

/** A value saved as JSON, its fields as a map: none when none was saved, or not ours. */
function saved(name: string): ReadonlyMap<string, unknown> {
  try {
    return fieldsOf(JSON.parse(core.getState(name)));
  } catch {
    return new Map();
  }
}

export function savedMainEnding(): MainEnding | undefined {
  const fields = saved(KEY.verdict);
  const status = textOf(fields, 'status');
  return status === undefined ? undefined : { status, failure: textOf(fields, 'failure') };
}

/**
 * With `compare_schema`: what the review compares (the branch, its parent, the database), found by
 * the main step, which knows the branch it made; the post step, which never writes, compares it at
 * the end of the job, after the migrations of the later steps.
 */
export function saveSchemaTarget(report: Report): void {
  if (!markSaved) return;
  const handed = checkFacts(report, 'schema review').find((facts) => facts?.handedOver);
  if (handed) save(KEY.schema, JSON.stringify(handed.handedOver));
}

export function savedSchemaTarget(): SchemaTarget | undefined {
  const fields = saved(KEY.schema);
  const [branchId, baseBranchId, database] = ['branchId', 'baseBranchId', 'database'].map((key) =>
    textOf(fields, key)
  );
  if (branchId && baseBranchId && database) return { branchId, baseBranchId, database };
  return undefined;
}
