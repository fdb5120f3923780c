import type { Rules } from '../neon/answer-rules.js';
import type { BranchOutcome } from '../neon/branch-outcome.js';
import { branchPath } from '../neon/resources.js';
import { sendRequest, unsent } from '../neon/send.js';
import { readBranchName } from '../settings/fields.js';
import { operationsOf, type Performed, type RequestKindModule, type StepDeps } from './kind.js';
import { findNamedBranch } from './branch-lookups.js';
import { refuseUntouchable } from './branch-life.js';

// `delete_branch: NAME_OR_ID`: delete that branch, then wait for the deletion; one already gone
// passes. The default branch and protected branches are refused with nothing sent.

export interface DeleteBranchKind {
  kind: 'delete_branch';
  branch: string;
}

/** A deletion sent again deletes the branch or answers 404 (already gone): either is what was asked. */
// prettier-ignore
const RULES = {
  delete_branch: { accepted: 'accept', conflict: 'refuse', not_found: 'gone',   locked: 'await_lock', unavailable: 'retry', server_error: 'refuse', throttled: 'retry', no_answer: 'resend',      other: 'refuse' }
} as const satisfies Record<string, Rules>;

export const deleteBranch: RequestKindModule<DeleteBranchKind> = {
  input: 'delete_branch',
  own: [],
  rules: RULES,
  connects: false,
  read: (input) => ({
    kind: 'delete_branch',
    branch: readBranchName(
      { name: 'delete_branch', value: input('delete_branch').trim() },
      'name or id'
    )
  }),
  perform
};

async function perform(
  kind: DeleteBranchKind,
  deadline: number,
  deps: StepDeps
): Promise<Performed> {
  const { projectId } = deps;
  const found = await findNamedBranch('delete_branch', kind.branch, 'name or id', deadline, deps);
  // A name found nowhere has no id: `branch_id` stays empty, never the name.
  const gone = (id?: string): Performed => {
    deps.log(`Branch ${kind.branch} is already gone: nothing to delete.`);
    const branch: BranchOutcome = { id, name: found?.name ?? kind.branch, outcome: 'gone' };
    const outcome = unsent('DELETE', branchPath(projectId, id ?? kind.branch));
    return { outcome: { ...outcome, ended: 'gone', branch }, follow: 'nothing' };
  };
  if (!found) return gone();
  refuseUntouchable('delete_branch', found, 'deleted');
  const outcome = await sendRequest(
    {
      method: 'DELETE',
      path: branchPath(projectId, found.id),
      rules: RULES.delete_branch,
      action: 'delete_timeline'
    },
    deadline,
    deps
  );
  const { id, name, parentId } = found;
  if (outcome.ended === 'gone')
    return { ...gone(id), outcome: { ...outcome, branch: { id, name, outcome: 'gone' } } };
  deps.log(`Deleting branch ${name} (${id}).`);
  const branch: BranchOutcome = { id, name, parentId, outcome: 'deleted' };
  return {
    outcome: { ...outcome, branch },
    follow: { operations: operationsOf(outcome.response) }
  };
}
