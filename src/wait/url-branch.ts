import { neonEndpointId } from '../database/neon-host.js';
import { describeTarget, type DatabaseTarget } from '../database/url.js';
import type { NeonClient } from '../neon/client.js';
import { actionNaming, CancelledError, type Naming } from '../util/errors.js';
import { WAIT_STATUS } from './status.js';
import type { WaitLog } from './tracker.js';
import type { WaitResult } from './wait.js';

/**
 * With both `branch_id` and `database_url`: before connecting, one request checks that the URL's
 * endpoint belongs to that branch, so that a URL of another branch (`main`'s, after a mix-up in
 * an earlier step) is never used. Ends as `database_error` when it does not, or when it cannot be
 * told; a host that is not a Neon endpoint host is not checked.
 */
export async function checkUrlBranch(
  result: WaitResult,
  settings: { branchId?: string; databaseUrl?: DatabaseTarget; wait: boolean; timeoutMs: number },
  deps: { client: NeonClient; log: WaitLog; named?: Naming }
): Promise<WaitResult> {
  const { branchId, databaseUrl } = settings;
  const projectId = result.projectId;
  // The database is not tried after a failed or skipped wait: nothing to protect then.
  const connecting = settings.wait && !result.failure && !result.timedOut;
  if (!branchId || !databaseUrl || !projectId || !connecting) return result;
  const target = describeTarget(databaseUrl);
  const named = deps.named ?? actionNaming;
  const endpointId = neonEndpointId(databaseUrl.host);
  if (!endpointId) {
    deps.log.info(
      `The host ${databaseUrl.host} is not a Neon endpoint host: not checked against ${named('branch_id')}.`
    );
    return result;
  }
  const refuse = (problem: string): WaitResult => ({
    ...result,
    status: WAIT_STATUS.databaseError,
    failure: problem,
    finishedAt: Date.now(),
    database: { ready: false, target, attempts: 0, problem }
  });
  let owner: string;
  try {
    const deadline = result.startedAt + settings.timeoutMs;
    owner = (await deps.client.getEndpoint(projectId, endpointId, deadline)).branchId;
  } catch (error) {
    if (error instanceof CancelledError) throw error;
    return refuse(
      `Could not check that ${named('database_url')} (endpoint ${endpointId}) belongs to branch ` +
        `${branchId}, so it was not used: ${(error as Error).message}`
    );
  }
  if (owner !== branchId)
    return refuse(
      `${named('database_url')} names endpoint ${endpointId}, which belongs to branch ${owner}, ` +
        `not to ${named('branch_id')} ${branchId}: not connecting. Pass the URL of branch ${branchId}.`
    );
  deps.log.info(`Endpoint ${endpointId} of ${target} belongs to branch ${branchId}.`);
  return result;
}
