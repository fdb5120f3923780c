import type { NeonClient } from '../neon/client.js';
import { capital } from '../util/text.js';
import { InputError } from '../util/errors.js';

/** The project to watch when none was named: the only one the key sees, else an error listing some. */
export async function resolveProjectId(
  client: NeonClient,
  given: { projectId?: string; orgId?: string },
  deadline: number
): Promise<string> {
  if (given.projectId) return given.projectId;
  // One more than shown: the service returns a cursor even on its last page, so only an eleventh
  // project tells that there are more.
  const shown = 10;
  const page = await client.listProjects({ limit: shown + 1, org_id: given.orgId }, deadline);
  if (page.projects.length === 1) return (page.projects[0] as { id: string }).id;
  if (page.projects.length === 0) {
    throw new InputError(
      'project_id',
      (named) =>
        `${capital(named('project_id'))} is empty and the API key sees no project` +
        (given.orgId ? ` in organization ${given.orgId}` : '') +
        `. Set ${named('project_id')} (with a personal key, projects of an organization need ${named('org_id')}).`
    );
  }
  const more = page.projects.length > shown;
  const names = page.projects
    .slice(0, shown)
    .map((p) => (p.name ? `${p.id} (${String(p.name).slice(0, 40)})` : p.id));
  throw new InputError(
    'project_id',
    (named) =>
      `${capital(named('project_id'))} is empty and the API key sees ${more ? 'more than ' : ''}${Math.min(shown, page.projects.length)} ` +
      `projects: ${names.join(', ')}${more ? ', …' : ''}. Set ${named('project_id')} to one of them.`
  );
}
