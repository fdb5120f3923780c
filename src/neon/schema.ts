import type { NeonClient } from './client.js';
import { ApiError } from '../util/errors.js';
import { oneLine } from '../util/text.js';
import { branchPath } from './resources.js';

/**
 * The unified diff of database `dbName`'s schema on branch `branchId` against its schema on
 * `baseBranchId` (`GET …/branches/{branch_id}/compare_schema`, `BranchSchemaCompareResponse`);
 * empty when they are the same. The document marks no field of the answer as required, and Neon's
 * own MCP server reads a missing `diff` as an empty one: an empty object `{}` is read so too. An
 * answer with other fields but no text `diff` is an API error, not "no change" (a review must not
 * pass a migration on a malformed answer).
 */
export async function compareSchema(
  client: NeonClient,
  projectId: string,
  branchId: string,
  baseBranchId: string,
  dbName: string,
  deadline: number
): Promise<string> {
  const query = new URLSearchParams({ base_branch_id: baseBranchId, db_name: dbName });
  const path = `${branchPath(projectId, branchId)}/compare_schema?${query}`;
  const missing = `Branch ${branchId}, branch ${baseBranchId} or database ${dbName} was not found in project ${projectId}`;
  const body = await client.getJson(path, deadline, missing);
  if (typeof body.diff === 'string') return body.diff;
  if (Object.keys(body).length === 0) return '';
  const shown = oneLine(JSON.stringify(body), 120);
  throw new ApiError(`The API answered compare_schema without a diff (${shown}).`, 200);
}
