import { hostKey, isNeonHost, pooledHost } from '../database/neon-host.js';
import { describeTarget } from '../database/url.js';
import type { EndpointHosts } from '../neon/resources.js';
import type { CheckOutcome } from '../report/check-outcome.js';
import { actionNaming, CancelledError } from '../util/errors.js';
import { WAIT_STATUS } from '../wait/status.js';
import type { Check } from './check.js';
import { databaseOutcome, type DatabaseSettings } from './select-one.js';

/**
 * With both `branch_id` and `database_url`: before connecting, one request lists the project's
 * endpoints, and the URL's host must be one the API answers for an endpoint of that branch (its
 * own host, its pooled host, or a compute's host of its compute group), so that a URL of another
 * branch (`main`'s, after a mix-up in an earlier step) is never used. Hosts are compared as
 * answered, never parsed: a compute's host is not its endpoint's id. Ends as `database_error`
 * when the host is another branch's, no endpoint's, or cannot be told; a host outside Neon's
 * domain is not checked.
 */
export const urlBelongsToBranch: Check<DatabaseSettings> = async (result, settings, deps) => {
  const { branchId, databaseUrl } = settings;
  const projectId = result.projectId;
  // The database is not tried after a failed or skipped wait: nothing to protect then.
  const connecting = settings.wait && !result.failure && !result.timedOut;
  if (!branchId || !databaseUrl || !projectId || !connecting) return undefined;
  const target = describeTarget(databaseUrl);
  const named = deps.named ?? actionNaming;
  const { host } = databaseUrl;
  if (!isNeonHost(host)) {
    deps.log.info(
      `The host ${host} is not a Neon endpoint host: not checked against ${named('branch_id')}.`
    );
    return undefined;
  }
  // A refusal is the database's outcome: not connecting, and why.
  const refuse = (problem: string): CheckOutcome =>
    databaseOutcome(
      { ready: false, target, attempts: 0, problem },
      { status: WAIT_STATUS.databaseError, failure: problem }
    );
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
  return undefined;
};

/** Every host the API answered for an endpoint, and its pooled form, compared as `hostKey`s. */
function hostsOf(endpoint: EndpointHosts): Set<string> {
  const answered = [endpoint.host, pooledHost(endpoint.host), ...endpoint.computeHosts];
  return new Set(answered.map(hostKey));
}
