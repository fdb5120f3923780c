import type { NeonClient } from '../../neon/client.js';
import { type FetchedPage, operationPages } from '../../neon/paging.js';
import { kindFor, type WaitMode } from '../mode.js';
import type { OperationTracker } from '../tracker.js';
import type { WaitSettings } from '../settings.js';
import { jobMode } from './job.js';
import { operationsMode } from './operations.js';
import { projectMode } from './project.js';

const MODES = { operations: operationsMode, project: projectMode, job: jobMode };

/** The mode the settings ask for; every mode's first page of a check is kept for the summary. */
export function modeFor(
  client: NeonClient,
  projectId: string,
  settings: WaitSettings,
  tracker: OperationTracker
): WaitMode {
  let page: FetchedPage | undefined;
  const { branchId } = settings;
  const mode = MODES[kindFor(settings)]({
    client,
    projectId,
    settings,
    tracker,
    scope: branchId ? `branch ${branchId} of project ${projectId}` : `project ${projectId}`,
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
