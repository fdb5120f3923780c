import type { BranchOutcome } from '../neon/branch-outcome.js';
import { readBranchName } from '../settings/fields.js';
import { connectionOf, findNamedBranch, noSuchBranch } from './branch-lookups.js';
import { refuseUntouchable, resetFromParent, RESTORE_RULES } from './branch-life.js';
import type { Performed, RequestKindModule, StepDeps } from './kind.js';

// `reset_branch: NAME_OR_ID`: restore that branch from its parent's head, then wait for what the
// restore started; its connection URLs are the outputs. The default branch and protected branches
// are refused with nothing sent; a name that does not exist is an error, and nothing is created.

export interface ResetBranchKind {
  kind: 'reset_branch';
  branch: string;
}

export const resetBranch: RequestKindModule<ResetBranchKind> = {
  input: 'reset_branch',
  own: [],
  rules: { reset_branch: RESTORE_RULES },
  connects: true,
  read: (input) => ({
    kind: 'reset_branch',
    branch: readBranchName(
      { name: 'reset_branch', value: input('reset_branch').trim() },
      'name or id'
    )
  }),
  perform
};

async function perform(
  kind: ResetBranchKind,
  deadline: number,
  deps: StepDeps
): Promise<Performed> {
  const { projectId } = deps;
  const found = await findNamedBranch('reset_branch', kind.branch, 'name or id', deadline, deps);
  if (!found) throw noSuchBranch('reset_branch', kind.branch, projectId, 'reset or created');
  refuseUntouchable('reset_branch', found, 'reset');
  const { outcome, operations } = await resetFromParent(found, deadline, deps);
  const connection = await connectionOf(found.id, {}, deadline, deps);
  const branch: BranchOutcome = {
    id: found.id,
    name: found.name,
    outcome: 'reset',
    ...(found.parentId && { parentId: found.parentId }),
    ...(found.expiresAt && { expiresAt: found.expiresAt }),
    ...(connection && { connection })
  };
  return {
    outcome: { ...outcome, branch, databaseUrl: connection?.url },
    follow: { operations }
  };
}
