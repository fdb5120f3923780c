import { readSchemaDiff } from '../database/schema-diff.js';
import { connectionNames } from '../neon/branches.js';
import { branchOf, branchPath } from '../neon/resources.js';
import type { NeonClient } from '../neon/client.js';
import { compareSchema } from '../neon/schema.js';
import type { CaseVerdict, CheckOutcome } from '../report/check-outcome.js';
import { code, escapeText } from '../report/markdown.js';
import { renderSchemaReview } from '../report/schema-review.js';
import { CancelledError } from '../util/errors.js';
import { WAIT_STATUS } from '../wait/status.js';
import type { WaitResult } from '../wait/wait.js';
import type { Check } from './check.js';

/** What the schema review compares: a branch, its parent and one database (handed to the post step as is). */
export interface SchemaTarget {
  branchId: string;
  baseBranchId: string;
  database: string;
}

/** A branch with no parent (a project's root branch): nothing to compare it with. */
type NoParent = { branchId: string; noParent: true };

/** What the schema review is asked. */
export interface SchemaReviewSettings {
  /** `compare_schema`: compare the branch's schema with its parent's. */
  compareSchema?: boolean;
  /** `fail_on_destructive`: a destructive change (or a review that could not be taken) fails the step. */
  failOnDestructive?: boolean;
  /** `database_name`: the database compared; by default the branch's first (its owner's). */
  databaseName?: string;
  /** `watch_job`: the migrations run in later steps, so the post step takes the diff. */
  watchJob?: boolean;
  /** In the post step: what the main step found to compare (`action/job-state.ts`). */
  schemaTarget?: SchemaTarget;
}

/** The review's name: its facts (`schema_changed`, …), its JUnit case. */
const NAME = 'schema review';
/** A review after a long wait still gets this long (ms): the API runs two pg_dumps. */
const REVIEW_MS = 30_000;
const MARKER = '🔍';

/**
 * `compare_schema`: the diff of the branch's schema against its parent's (Neon's
 * `compare_schema`), read for what it changes and destroys, and rendered into the report within
 * the room the rest leaves. The branch is the one the request made, reused or reset, else
 * `branch_id`. A branch without a parent, or an API that does not answer, is a line saying so, not
 * a failure, unless `fail_on_destructive` asked for a gate (an unreviewed migration must not pass
 * it). With `watch_job`, the main step only finds what to compare: the post step compares it.
 */
export const schemaReview: Check<SchemaReviewSettings> = async (result, settings, deps) => {
  const { projectId } = result;
  if (!settings.compareSchema || !projectId || result.apiUnusable) return undefined;
  const deadline = Math.max(result.startedAt + settings.timeoutMs, Date.now() + REVIEW_MS);
  const gate = Boolean(settings.failOnDestructive);
  let target: SchemaTarget | NoParent | undefined;
  try {
    target = settings.schemaTarget ?? (await targetOf(result, settings, deps.client, deadline));
  } catch (error) {
    if (error instanceof CancelledError) throw error;
    return notTaken(`the branch could not be read: ${(error as Error).message}`, gate);
  }
  if (!target) return undefined; // no branch: nothing to compare (a deletion, a failed create)
  if ('noParent' in target)
    return notTaken(`branch ${target.branchId} has no parent to compare with`, false);
  if (settings.watchJob) {
    deps.log.info(`The post step will compare the schema of branch ${target.branchId}.`);
    return {
      name: NAME,
      line: `${MARKER} Schema review: taken at the end of the job by the post step (watch_job), after the migrations.`,
      facts: { handedOver: target }
    };
  }
  const { branchId, baseBranchId, database } = target;
  deps.log.info(`Comparing the schema of ${database} on branch ${branchId} with ${baseBranchId}.`);
  let diff: string;
  try {
    diff = await compareSchema(deps.client, projectId, branchId, baseBranchId, database, deadline);
  } catch (error) {
    if (error instanceof CancelledError) throw error;
    return notTaken(`the API did not answer compare_schema: ${(error as Error).message}`, gate);
  }
  return reviewOutcome(target, diff, gate);
};

/**
 * The branch to review and its parent: the request's branch when it still exists, else `branch_id`
 * (read for its parent); the database asked, else the one the branch's connection names, else the
 * branch's first.
 */
async function targetOf(
  result: WaitResult,
  settings: SchemaReviewSettings & { branchId?: string },
  client: NeonClient,
  deadline: number
): Promise<SchemaTarget | NoParent | undefined> {
  const projectId = result.projectId ?? '';
  const made = result.request?.branch;
  const kept = made && !['deleted', 'gone'].includes(made.outcome) ? made : undefined;
  const branchId = kept?.id ?? settings.branchId;
  if (!branchId) return undefined;
  const parentId = kept ? kept.parentId : await parentIdOf(client, projectId, branchId, deadline);
  if (!parentId) return { branchId, noParent: true };
  const database =
    settings.databaseName ??
    kept?.connection?.database ??
    (await connectionNames(client, projectId, branchId, deadline, {}))?.database;
  if (!database) throw new Error(`branch ${branchId} has no database`);
  return { branchId, baseBranchId: parentId, database };
}

async function parentIdOf(
  client: NeonClient,
  projectId: string,
  branchId: string,
  deadline: number
): Promise<string | undefined> {
  const path = branchPath(projectId, branchId);
  const body = await client.getJson(path, deadline, `Branch ${branchId} was not found`);
  const branch = branchOf(body.branch);
  if (!branch) throw new Error(`the API answered no readable branch ${branchId}`);
  return branch.parentId;
}

/** A review that could not be taken: a line, a skipped case, and with the gate an API error. */
function notTaken(reason: string, gate: boolean): CheckOutcome {
  const why = reason.replace(/\.$/, '');
  const line = `${MARKER} Schema review not taken: ${escapeText(why)}.`;
  const verdict: CaseVerdict = gate
    ? ['error', 'schema review not taken', WAIT_STATUS.apiError, why]
    : ['skipped', `not taken: ${why}`];
  const failure = `The schema review was not taken (fail_on_destructive is true): ${why}.`;
  return {
    name: NAME,
    line,
    junit: { name: NAME, ms: 0, verdict },
    digest: [why],
    facts: { notTaken: why },
    ...(gate && { ending: { status: WAIT_STATUS.apiError, failure } })
  };
}

/**
 * The review of one diff: its line, the review itself (sized to the room the report leaves it),
 * its JUnit case (a failure only with the gate), its digest and facts.
 */
export function reviewOutcome(target: SchemaTarget, diff: string, gate: boolean): CheckOutcome {
  const { branchId, baseBranchId, database } = target;
  const read = readSchemaDiff(diff);
  const destroys = read.destructive.length;
  const said = !read.changed
    ? 'no schema change'
    : destroys === 0
      ? 'no destructive change'
      : `⚠ ${destroys} destructive change${destroys === 1 ? '' : 's'}`;
  const compared = `${code(database)} on branch ${code(branchId)} against its parent ${code(baseBranchId)}`;
  const fails = gate && destroys > 0;
  const listed = read.destructive.map((d) => `${d.action} ${d.kind} ${d.name}`).join('\n');
  const verdict: CaseVerdict = fails
    ? ['failure', said, WAIT_STATUS.schemaDestructive, listed]
    : [];
  const failure = `The migration makes ${destroys} destructive schema change(s) (fail_on_destructive is true): ${listed.replace(/\n/g, '; ')}.`;
  return {
    name: NAME,
    line: `${MARKER} Schema review of ${compared}: ${said}.`,
    details: (maxBytes) => renderSchemaReview({ database, diff, read }, maxBytes),
    junit: { name: NAME, ms: 0, verdict, properties: { branch_id: branchId }, out: listed },
    digest: [branchId, baseBranchId, database, diff],
    facts: { changed: read.changed, destructive: read.destructive },
    ...(fails && { ending: { status: WAIT_STATUS.schemaDestructive, failure } })
  };
}
