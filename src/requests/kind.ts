import type { InputName } from '../inputs.js';
import type { Rules } from '../neon/answer-rules.js';
import { isOperation, normalizeOperation, type Operation } from '../neon/operation.js';
import type { RequestDeps, RequestOutcome } from '../neon/send.js';
import type { InputReader } from '../settings/fields.js';
import type { Naming } from '../util/errors.js';
import type { GitHubAccess } from '../wait/wait.js';

// What every kind of request says about itself, in its own module; `index.ts` is the table of them.

/** What a kind's inputs may fill in besides their own: the `request` path's placeholders, the API base. */
export interface ReadContext {
  /** `{project_id}`, `{branch_id}`: filled from the inputs of the same name. */
  placeholders: Record<'project_id' | 'branch_id', string | undefined>;
  apiHost: string;
  /** The pull request the step runs for, as its front end read it (the event), if any. */
  pullRequest?: PullRequestRef;
}

/** A pull request: its number and its repository (`owner/name`). */
export interface PullRequestRef {
  number: number;
  repository: string;
}

/** What the wait follows once the request is done. */
export type Follow =
  | { operations: Operation[] } // the operations the answer started
  | { branchId: string } // an adopted branch: until it has no operation in progress
  | 'nothing'; // a branch already gone

/** What performing a kind came to: what happened to the request, and what the wait then follows. */
export interface Performed {
  outcome: RequestOutcome;
  follow: Follow;
}

export interface StepDeps extends RequestDeps {
  /** Warnings the log shows as such (an adopted branch of another parent). */
  warn: (line: string) => void;
  /** Where a sweep reads pull requests (GITHUB_API_URL by default). */
  github?: GitHubAccess;
}

/**
 * One kind of request, said once: the input that asks for it (also the kind's name), the inputs
 * only it reads, how they are read, its rows of rules, and how it is performed. `K` is the typed
 * request its inputs are read into.
 */
export interface RequestKindModule<K extends { kind: InputName }> {
  /** The input that asks for this kind (`create_branch`); a step asks for one kind at most. */
  input: K['kind'];
  /** The inputs only this kind reads: an error when given without it. */
  own: readonly InputName[];
  /** Why one of `own` is refused when this kind is not asked (`asked`: the kind that is, if any). */
  stray?: (named: Naming, asked: InputName | undefined) => string;
  /**
   * Inputs that cannot go with this kind (`inputs`: text inputs, set when not empty), and why
   * (`why`, after `cannot be used with KIND`): refused before anything is sent.
   */
  excludes?: { inputs: readonly InputName[]; why: string };
  /** Its rows of rules by name (docs/request.md's table); the kind sends by them. */
  rules: Readonly<Record<string, Rules>>;
  /** Whether its answer gives the branch's connection, for `database_url: response`. */
  connects: boolean;
  /** Its inputs, read into the typed request (the kind's input is set). */
  read(input: InputReader, context: ReadContext): K;
  /** Its whole exchange: lookups, the request sent by its rules, what the answer means. */
  perform(request: K, deadline: number, deps: StepDeps): Promise<Performed>;
}

/** The operations an answer started (its `operations` array), as the API described them. */
export function operationsOf(response: unknown): Operation[] {
  const list =
    response && typeof response === 'object' && 'operations' in response
      ? response.operations
      : undefined;
  return Array.isArray(list) ? list.filter(isOperation).map(normalizeOperation) : [];
}
