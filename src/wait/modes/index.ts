import type { NeonClient } from '../../neon/client.js';
import { type FetchedPage, operationPages } from '../../neon/paging.js';
import {
  kindFor,
  type ModeContext,
  type ModeWords,
  type WaitKind,
  type WaitMode
} from '../mode.js';
import type { OperationTracker } from '../tracker.js';
import type { WaitSettings } from '../wait-settings.js';
import { endpointMode, endpointWords } from './endpoint.js';
import { jobMode, jobWords } from './job.js';
import { operationsMode, operationsWords } from './operations.js';
import { projectMode, projectWords } from './project.js';

interface ModeRow {
  start: (context: ModeContext) => Omit<WaitMode, 'newestPage'>;
  words: ModeWords;
}

/** Every way of waiting: a kind without its row fails `tsc`. */
const MODES = {
  operations: { start: operationsMode, words: operationsWords },
  project: { start: projectMode, words: projectWords },
  endpoint: { start: endpointMode, words: endpointWords },
  job: { start: jobMode, words: jobWords }
} satisfies Record<WaitKind, ModeRow>;

/** How the report names what the mode of `kind` followed. */
export const modeWords = (kind: WaitKind): ModeWords => MODES[kind].words;

/** What is followed, as the log and the messages name it. */
function scopeOf(projectId: string, { branchId, endpointId }: WaitSettings): string {
  if (endpointId) return `compute ${endpointId} of project ${projectId}`;
  if (branchId) return `branch ${branchId} of project ${projectId}`;
  return `project ${projectId}`;
}

/** The mode the settings ask for; every mode's first page of a check is kept for the summary. */
export function modeFor(
  client: NeonClient,
  projectId: string,
  settings: WaitSettings,
  tracker: OperationTracker
): WaitMode {
  let page: FetchedPage | undefined;
  const mode = MODES[kindFor(settings)].start({
    client,
    projectId,
    settings,
    tracker,
    scope: scopeOf(projectId, settings),
    list: (deadline, limit, maxPages, patience) =>
      operationPages(client, projectId, {
        limit,
        deadline,
        patience,
        maxPages,
        onPage: (p) => (page ??= p)
      })
  });
  return {
    ...mode,
    newestPage: () => page,
    refresh: (deadline) => {
      page = undefined;
      return mode.refresh(deadline);
    }
  };
}
