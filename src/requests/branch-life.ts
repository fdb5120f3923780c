import { randomUUID } from 'node:crypto';
import type { Rules } from '../neon/answer-rules.js';
import type { Operation } from '../neon/operation.js';
import { type Branch, branchOf, branchPath } from '../neon/resources.js';
import { type RequestOutcome, sendRequest } from '../neon/send.js';
import type { InputName } from '../inputs.js';
import { systemClock } from '../util/clock.js';
import { formatDuration } from '../util/duration.js';
import { InputError } from '../util/errors.js';
import { fieldsOf, textOf } from '../util/json-fields.js';
import { capital } from '../util/text.js';
import { operationsOf, type StepDeps } from './kind.js';

// What `create_branch` and `reset_branch` share beyond the lookups: the branches never touched,
// the reset from the parent's head, the expiry's renewal, and the mark that tells this step's
// create from another job's.

/**
 * A restore sent again after a lost answer restores from the parent's head again (the same state),
 * or meets the first one's lock and goes once it ends: safe to resend.
 */
// prettier-ignore
export const RESTORE_RULES = { accepted: 'accept', conflict: 'refuse', not_found: 'refuse', locked: 'await_lock', unavailable: 'retry', server_error: 'refuse', throttled: 'retry', no_answer: 'resend',      other: 'refuse' } as const satisfies Rules;
/** An expiry set to a time, not moved by an amount: sent again, it sets the same time. */
// prettier-ignore
export const EXPIRY_RULES = { accepted: 'accept', conflict: 'refuse', not_found: 'refuse', locked: 'await_lock', unavailable: 'retry', server_error: 'refuse', throttled: 'retry', no_answer: 'resend',      other: 'refuse' } as const satisfies Rules;

/**
 * Refuses the default branch and protected branches for the input that named them: a preview
 * step must never hand production's URL on, nor reset it. Nothing is sent for them.
 */
export function refuseUntouchable(input: InputName, found: Branch, what: string): void {
  const refused = found.default
    ? "the project's default branch"
    : found.protected
      ? 'a protected branch'
      : '';
  if (!refused) return;
  throw new InputError(
    input,
    (named) =>
      `${capital(named(input))} names ${found.name} (${found.id}), ${refused}: it is not ${what}. Name a preview branch.`
  );
}

/** RFC 3339 to the second, as `expires_at` is written. */
const toSeconds = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** `expires_in` from now on the service's clock: it deletes the branch when its own clock passes this. */
export function expiryFrom(expiresInMs: number, deps: StepDeps): string {
  const now = (deps.clock ?? systemClock).now();
  return toSeconds(deps.client.serviceClock.toService(now) + expiresInMs);
}

/**
 * Restores the branch from its parent's head (`source_branch_id` = its parent): its id, name and
 * computes stay, its data becomes the parent's. What the restore started is for the wait.
 */
export async function resetFromParent(
  branch: Branch,
  deadline: number,
  deps: StepDeps
): Promise<{ outcome: RequestOutcome; operations: Operation[] }> {
  const { parentId } = branch;
  if (!parentId)
    throw new InputError(
      'reset_branch',
      () => `Branch ${branch.name} (${branch.id}) has no parent to be reset from.`
    );
  const outcome = await sendRequest(
    {
      method: 'POST',
      path: `${branchPath(deps.projectId, branch.id)}/restore`,
      body: JSON.stringify({ source_branch_id: parentId }),
      rules: RESTORE_RULES,
      action: 'create_timeline'
    },
    deadline,
    deps
  );
  deps.log(`Resetting branch ${branch.name} (${branch.id}) from its parent's head (${parentId}).`);
  return { outcome, operations: operationsOf(outcome.response) };
}

/** Sets the branch's `expires_at` to `expires_in` from now (the service's clock); the new time. */
export async function renewExpiry(
  branch: Branch,
  expiresInMs: number,
  deadline: number,
  deps: StepDeps
): Promise<string> {
  const expiresAt = expiryFrom(expiresInMs, deps);
  const outcome = await sendRequest(
    {
      method: 'PATCH',
      path: branchPath(deps.projectId, branch.id),
      body: JSON.stringify({ branch: { expires_at: expiresAt } }),
      rules: EXPIRY_RULES
    },
    deadline,
    { ...deps, onProgress: undefined }
  );
  const answered = branchOf(fieldsOf(outcome.response).get('branch'))?.expiresAt ?? expiresAt;
  const before = branch.expiresAt ? ` (was ${branch.expiresAt})` : '';
  deps.log(
    `Renewed the expiry of branch ${branch.name}: it expires at ${answered}${before}, ${formatDuration(expiresInMs)} from now.`
  );
  return answered;
}

/**
 * The key of this action's mark in a create's `annotation_value`: one new value for each create a
 * step sends (the same on its resends), so that after a 409 the branch found is this step's only
 * when it carries the same value. A creation time cannot tell: another job may create the name
 * at any moment of an unanswered send.
 */
export const CREATE_MARK_KEY = 'neon-wait-create-id';

export const newCreateMark = (): string => randomUUID();

/** Whether the branch carries this create's mark (its `annotation`, read with the branch). */
export async function carriesMark(
  branch: Branch,
  mark: string,
  deadline: number,
  deps: StepDeps
): Promise<boolean> {
  const path = branchPath(deps.projectId, branch.id);
  const body = await deps.client.getJson(path, deadline, `Branch ${branch.id} was not found`);
  const value = fieldsOf(fieldsOf(body.annotation).get('value'));
  return textOf(value, CREATE_MARK_KEY) === mark;
}
