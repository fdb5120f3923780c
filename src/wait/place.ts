import type { NeonClient } from '../neon/client.js';
import { ApiError, InputError } from '../util/errors.js';
import { fieldsOf, textOf } from '../util/json-fields.js';
import { capital } from '../util/text.js';
import type { WaitSettings } from './wait-settings.js';

/**
 * The branch or compute a wait follows, looked up once before the first check. A wrong id matches
 * no operation, so the wait would pass as `idle`; a wrong operation id is a 404, and so is this.
 * With both, the compute must be the branch's: the wait follows the compute only.
 */
export async function confirmPlace(
  client: NeonClient,
  projectId: string,
  { branchId, endpointId }: Pick<WaitSettings, 'branchId' | 'endpointId'>,
  deadline: number
): Promise<void> {
  const project = `/projects/${encodeURIComponent(projectId)}`;
  if (endpointId) {
    const path = `${project}/endpoints/${encodeURIComponent(endpointId)}`;
    const answer = await lookUp(
      client,
      path,
      deadline,
      'endpoint',
      `Compute ${endpointId}`,
      projectId
    );
    const owner = textOf(fieldsOf(answer.endpoint), 'branch_id');
    if (branchId && owner && owner !== branchId)
      throw new InputError(
        'endpoint_id',
        (named) =>
          `${capital(named('endpoint_id'))} ${endpointId} is a compute of branch ${owner}, not of ${named('branch_id')} ${branchId}. Give the ids of one branch.`
      );
    return;
  }
  if (branchId) {
    const path = `${project}/branches/${encodeURIComponent(branchId)}`;
    await lookUp(client, path, deadline, 'branch', `Branch ${branchId}`, projectId);
  }
}

/** A GET whose 404 names what was not found, and the inputs to check (as a wrong operation id's). */
async function lookUp(
  client: NeonClient,
  path: string,
  deadline: number,
  missing: 'branch' | 'endpoint',
  what: string,
  projectId: string
): Promise<Record<string, unknown>> {
  const notFound = `${what} was not found in project ${projectId}, or this API key cannot see that project`;
  try {
    return await client.getJson(path, deadline, notFound);
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 404) throw error;
    throw new ApiError(error.message, 404, error.requestId, missing);
  }
}
