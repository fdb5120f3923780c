import type { InputName } from '../inputs.js';
import type { Rules } from '../neon/answer-rules.js';
import { branchExists } from '../neon/branches.js';
import type { RequestOutcome } from '../neon/send.js';
import { ApiError } from '../util/errors.js';
import { invalid, type InputReader } from '../settings/fields.js';
import { systemClock } from '../util/clock.js';
import { endingOf, type Ending } from '../wait/conclusion.js';
import { typicalDurations } from '../wait/history.js';
import { resolveProjectId } from '../wait/project-id.js';
import { WAIT_STATUS } from '../wait/status.js';
import { resultOf, type WaitDeps, type WaitResult, waitFor } from '../wait/wait.js';
import type { WaitSettings } from '../wait/wait-settings.js';
import { apiRequest } from './api-request.js';
import { createBranch } from './create-branch.js';
import { deleteBranch } from './delete-branch.js';
import { resetBranch } from './reset-branch.js';
import { sweepBranches } from './sweep-branches.js';
import type { Performed, ReadContext, RequestKindModule, StepDeps } from './kind.js';

/**
 * The kinds of request a step can make, one module each, keyed by the input that asks for it (in
 * the order an error names them). A new kind is its module, its inputs' rows and a line here.
 */
const KINDS = {
  request: apiRequest,
  create_branch: createBranch,
  delete_branch: deleteBranch,
  reset_branch: resetBranch,
  sweep_branches: sweepBranches
} satisfies { [N in InputName]?: RequestKindModule<{ kind: N }> };

type Kinds = typeof KINDS;
type KindOf<M> = M extends RequestKindModule<infer K> ? K : never;
/** Each kind's typed request, by its name. */
type KindMap = { [N in keyof Kinds]: KindOf<Kinds[N]> };

/** The typed request a step makes: what it is, not only its method and path. */
export type RequestKind = KindMap[keyof Kinds];

/** Each kind's module, typed by its name: a kind's request reaches its own module only. */
const MODULES: { [N in keyof Kinds]: RequestKindModule<KindMap[N]> } = KINDS;
/** The kinds' names in the table's order (`Object.keys` is typed `string[]`: the filter narrows it). */
const NAMES = Object.keys(MODULES).filter((name): name is keyof Kinds => name in MODULES);

/**
 * What an answer means, for each kind: one row a kind (the free-form request has two, `read` for a
 * GET and `write`), assembled from the kinds' modules; docs/request.md's table is tested against it.
 */
export const REQUEST_RULES: Readonly<Record<string, Rules>> = Object.fromEntries(
  NAMES.flatMap((name) => Object.entries(MODULES[name].rules))
);

/**
 * The request the inputs ask for, if any: at most one kind's input is set, and the inputs only
 * another kind reads are not.
 */
export function readRequest(input: InputReader, context: ReadContext): RequestKind | undefined {
  const given = NAMES.filter((name) => input(name) !== '');
  const field = (name: InputName) => ({ value: input(name).trim(), name });
  const [asked, second] = given;
  if (asked && second)
    throw invalid(
      field(asked),
      (named) =>
        `and ${named(second)} cannot both be set: a step sends one request. Use one step for each.`
    );
  for (const name of NAMES) {
    const { own, stray: words } = MODULES[name];
    const stray = name === asked ? undefined : own.find((other) => field(other).value !== '');
    if (stray === undefined) continue;
    throw invalid(field(stray), (named) =>
      words ? words(named, asked) : `is an input of ${named(name)}, which is not set.`
    );
  }
  const excluded = asked && MODULES[asked].excludes;
  const clash = excluded?.inputs.find((name) => field(name).value !== '');
  if (asked && excluded && clash)
    throw invalid(field(clash), (named) => `cannot be used with ${named(asked)}: ${excluded.why}`);
  return asked && MODULES[asked].read(input, context);
}

/** The kinds whose answer gives a branch's connection (`database_url: response`), by input. */
export const CONNECTING_KINDS: readonly InputName[] = NAMES.filter(
  (name) => MODULES[name].connects
);

/** A typed request, performed by its own kind's module. */
function performRequest<N extends keyof Kinds>(
  request: KindMap[N] & { kind: N },
  deadline: number,
  deps: StepDeps
): Promise<Performed> {
  const kind: RequestKindModule<KindMap[N]> = MODULES[request.kind];
  return kind.perform(request, deadline, deps);
}

/** What the engine asks: the wait's settings, and the request to make first, if any. */
export interface StepSettings extends WaitSettings {
  /** Sent first; the operations of its answer are then awaited as `givenOperations`. */
  request?: RequestKind;
}

/**
 * The `request` first, when asked (its retries count against the same deadline), then the wait for
 * the operations of its answer, exactly as if they had been given as `operations`.
 */
export async function performAndWait(settings: StepSettings, deps: WaitDeps): Promise<WaitResult> {
  const { request } = settings;
  if (!request) return waitFor(settings, deps);
  const clock = deps.clock ?? systemClock;
  const startedAt = clock.now();
  const deadline = startedAt + settings.timeoutMs;
  let outcome: RequestOutcome | undefined;
  const ended = (ending: Ending): WaitResult =>
    resultOf(settings, ending, {
      startedAt,
      finishedAt: clock.now(),
      serviceAheadMs: deps.client.serviceClock.offsetMs,
      request: outcome
    });
  try {
    const { client } = deps;
    const projectId = await resolveProjectId(client, settings, deadline);
    const done = await performRequest(request, deadline, {
      ...deps,
      projectId,
      clock,
      log: (line) => deps.log.info(line),
      warn: (line) => (deps.log.warning ?? deps.log.info)(line),
      onProgress: (seen) => {
        outcome = seen;
        deps.onRequest?.(seen);
      },
      // What a mutation needs is known from the project's history (`durations`); none is needed without a wait.
      awaits: settings.wait,
      durations: typicalDurations
    });
    outcome = done.outcome;
    const { follow } = done;
    if (follow === 'nothing') return { ...ended({ status: WAIT_STATUS.idle }), projectId };
    const given = 'operations' in follow ? follow.operations : [];
    deps.log.info(
      `${outcome.method} ${outcome.path}: HTTP ${outcome.status} after ${outcome.attempts} attempt(s); ` +
        ('branchId' in follow
          ? `waiting until branch ${follow.branchId} has no operation in progress.`
          : `${given.length} operation(s) started.`)
    );
    const ids = [...new Set([...settings.operationIds, ...given.map((op) => op.id)])];
    const rest = {
      operationIds: ids,
      ...('branchId' in follow && { branchId: follow.branchId, adoptedBranch: true })
    };
    // The request's deadline goes on: the wait counts from the step's start, so that a timeout
    // names the step's `timeout`, not what the request left of it.
    const waiting = { ...settings, ...rest, projectId, givenOperations: given };
    const waited = await waitFor(waiting, deps, startedAt);
    // An adopted branch deleted meanwhile (another job's delete_branch, its expiry) is not ready:
    // the deletion came after this step found it, so it stands, and its URLs are not handed on.
    const adopted = 'branchId' in follow ? follow.branchId : undefined;
    if (adopted && !waited.failure && !(await branchExists(client, projectId, adopted, deadline))) {
      const { branch } = outcome;
      outcome = {
        ...outcome,
        databaseUrl: undefined,
        branch: branch && { ...branch, connection: undefined }
      };
      throw new ApiError(
        `Branch ${branch?.name ?? adopted} (${adopted}) was deleted while this step adopted it: not ready, and its connection is not given. ` +
          'Run the step again to create it anew.',
        404
      );
    }
    const readyMs = waited.finishedAt - startedAt;
    const branch = outcome.branch && { ...outcome.branch, ...(!waited.failure && { readyMs }) };
    return { ...waited, startedAt, request: { ...outcome, branch } };
  } catch (error) {
    const context = { settings, startedAt, signal: deps.signal, checksDone: 0, named: deps.named };
    return ended(endingOf(error, context));
  }
}
