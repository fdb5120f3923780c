import type { NeonClient } from '../neon/client.js';
import { capital } from '../util/text.js';
import { InputError } from '../util/errors.js';

/** The project to watch when none was named: the only one the key sees, else an error listing some. */
export async function resolveProjectId(
  client: Pick<NeonClient, 'listProjects'>,
  given: { projectId?: string; orgId?: string },
  deadline: number
): Promise<string> {
  if (given.projectId) return given.projectId;
  // One more than shown: the service returns a cursor even on its last page, so only an eleventh
  // project tells that there are more.
  const shown = 10;
  const query = { limit: shown + 1, org_id: given.orgId };
  const { projects } = await client.listProjects(query, deadline);
  const [only, ...others] = projects;
  if (only && others.length === 0) return only.id;
  const more = projects.length > shown;
  const names = projects
    .slice(0, shown)
    .map((p) => (p.name ? `${p.id} (${String(p.name).slice(0, 40)})` : p.id));
  throw new InputError('project_id', (named) => {
    const intro = `${capital(named('project_id'))} is empty and the API key sees`;
    if (names.length === 0) {
      const where = given.orgId ? ` in organization ${given.orgId}` : '';
      return `${intro} no project${where}. Set ${named('project_id')} (with a personal key, projects of an organization need ${named('org_id')}).`;
    }
    const count = more ? `more than ${names.length}` : `${names.length}`;
    const list = more ? `${names.join(', ')}, …` : names.join(', ');
    return `${intro} ${count} projects: ${list}. Set ${named('project_id')} to one of them.`;
  });
}
