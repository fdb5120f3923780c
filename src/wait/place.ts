import type { NeonClient } from '../neon/client.js';
import { branchPath, projectPath } from '../neon/resources.js';
import { InputError } from '../util/errors.js';
import { fieldsOf, textOf } from '../util/json-fields.js';
import { capital } from '../util/text.js';
import type { WaitSettings } from './wait-settings.js';

/**
 * The branch or compute a wait follows, looked up once before the first check. A wrong id matches
 * no operation, so the wait would pass as `idle`; a wrong operation id is a 404, and so is this
 * (its error names the inputs to check). With both, the compute must be the branch's: the wait
 * follows the compute only.
 */
export async function confirmPlace(
  client: NeonClient,
  projectId: string,
  { branchId, endpointId }: Pick<WaitSettings, 'branchId' | 'endpointId'>,
  deadline: number
): Promise<void> {
  const notFound = (what: string) =>
    `${what} was not found in project ${projectId}, or this API key cannot see that project`;
  if (endpointId) {
    const path = `${projectPath(projectId)}/endpoints/${encodeURIComponent(endpointId)}`;
    const compute = notFound(`Compute ${endpointId}`);
    const answer = await client.getJson(path, deadline, compute, 'endpoint');
    const owner = textOf(fieldsOf(answer.endpoint), 'branch_id');
    if (branchId && owner && owner !== branchId)
      throw new InputError(
        'endpoint_id',
        (named) =>
          `${capital(named('endpoint_id'))} ${endpointId} is a compute of branch ${owner}, not of ${named('branch_id')} ${branchId}. Give the ids of one branch.`
      );
    return;
  }
  if (!branchId) return;
  const path = branchPath(projectId, branchId);
  await client.getJson(path, deadline, notFound(`Branch ${branchId}`), 'branch');
}
