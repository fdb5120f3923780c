import { NEON_API_HOST } from '../neon/http.js';
import { RESOURCE_ID } from '../neon/operation.js';
import { code } from './markdown.js';

/**
 * Links to the Neon console, at the addresses Neon's own tools use (`/app/projects/:projectId`,
 * `…/branches/:branchId` on the API's origin): neondatabase/mcp-server-neon
 * `mcp/tools/handlers/urls.ts`, neondatabase/neon_local_vs_code_extension
 * `src/views/schemaView.ts`. Neither shows a compute's address, so an endpoint gets no link.
 */
const CONSOLE = new URL(NEON_API_HOST).origin;

/**
 * Whether a report about this API host may link to Neon's console: only for Neon's own API (any
 * other host is a proxy, a simulator or another deployment, whose ids the console does not know).
 */
export function consoleLinksFor(apiHost: string): boolean {
  try {
    const url = new URL(apiHost);
    const base = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
    return base === NEON_API_HOST && !url.search && !url.hash && !url.username && !url.password;
  } catch {
    return false;
  }
}

/** Ids the API documents (`^[a-z0-9-]{1,60}$`) are the only ones put in an address. */
function linkable(id: string | undefined): id is string {
  return typeof id === 'string' && RESOURCE_ID.test(id);
}

export function projectUrl(projectId?: string): string | undefined {
  return linkable(projectId) ? `${CONSOLE}/app/projects/${projectId}` : undefined;
}

export function branchUrl(projectId?: string, branchId?: string): string | undefined {
  const project = projectUrl(projectId);
  return project && linkable(branchId) ? `${project}/branches/${branchId}` : undefined;
}

export function linkedCode(id: string, url: string | false | undefined): string {
  return url ? `<a href="${url}">${code(id)}</a>` : code(id);
}
