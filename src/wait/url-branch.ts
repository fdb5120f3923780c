import { hostKey, isNeonHost, pooledHost } from '../database/neon-host.js';
import { describeTarget, type DatabaseTarget } from '../database/url.js';
import type { NeonClient } from '../neon/client.js';
import type { EndpointHosts } from '../neon/resources.js';
import { actionNaming, CancelledError, type Naming } from '../util/errors.js';
import { WAIT_STATUS } from './status.js';
import type { WaitLog } from './tracker.js';
import type { WaitResult } from './wait.js';

/**
 * With both `branch_id` and `database_url`: before connecting, one request lists the project's
 * endpoints, and the URL's host must be one the API answers for an endpoint of that branch (its
 * own host, its pooled host, or a compute's host of its compute group), so that a URL of another
 * branch (`main`'s, after a mix-up in an earlier step) is never used. Hosts are compared as
 * answered, never parsed: a compute's host is not its endpoint's id. Ends as `database_error`
 * when the host is another branch's, no endpoint's, or cannot be told; a host outside Neon's
 * domain is not checked.
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
  const { host } = databaseUrl;
  if (!isNeonHost(host)) {
    deps.log.info(
      `The host ${host} is not a Neon endpoint host: not checked against ${named('branch_id')}.`
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
  let endpoints: EndpointHosts[];
  try {
    endpoints = await deps.client.listEndpoints(projectId, result.startedAt + settings.timeoutMs);
  } catch (error) {
    if (error instanceof CancelledError) throw error;
    return refuse(
      `Could not check that ${named('database_url')} (host ${host}) belongs to branch ` +
        `${branchId}, so it was not used: ${(error as Error).message}`
    );
  }
  const owner = endpoints.find((endpoint) => hostsOf(endpoint).has(hostKey(host)));
  if (!owner)
    return refuse(
      `${named('database_url')} names host ${host}, which is no host of an endpoint of project ` +
        `${projectId}, so it cannot belong to ${named('branch_id')} ${branchId}: not connecting.`
    );
  if (owner.branchId !== branchId)
    return refuse(
      `${named('database_url')} names endpoint ${owner.id}, which belongs to branch ${owner.branchId}, ` +
        `not to ${named('branch_id')} ${branchId}: not connecting. Pass the URL of branch ${branchId}.`
    );
  deps.log.info(`Endpoint ${owner.id} of ${target} belongs to branch ${branchId}.`);
  return result;
}

/** Every host the API answered for an endpoint, and its pooled form, compared as `hostKey`s. */
function hostsOf(endpoint: EndpointHosts): Set<string> {
  const answered = [endpoint.host, pooledHost(endpoint.host), ...endpoint.computeHosts];
  return new Set(answered.map(hostKey));
}
