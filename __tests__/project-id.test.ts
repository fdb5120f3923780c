import { describe, expect, it } from '@jest/globals';
import type { NeonClient } from '../src/neon/client.js';
import type { Project } from '../src/neon/resources.js';
import { InputError } from '../src/util/errors.js';
import { resolveProjectId } from '../src/wait/project-id.js';

const clientSeeing = (projects: Project[]): Pick<NeonClient, 'listProjects'> => ({
  listProjects: async () => ({ projects })
});

async function messageFor(projects: Project[], orgId?: string): Promise<string> {
  const client = clientSeeing(projects);
  const error = await resolveProjectId(client, { orgId }, Date.now() + 1000).catch(
    (e: unknown) => e
  );
  expect(error).toBeInstanceOf(InputError);
  return (error as InputError).message;
}

describe('the project when none was named', () => {
  const project = (i: number): Project => ({ id: `proj-${i}`, name: `Project ${i}` });

  it('is the only one the key sees', async () => {
    const client = clientSeeing([project(1)]);
    expect(await resolveProjectId(client, {}, Date.now() + 1000)).toBe('proj-1');
  });

  it('is asked for, naming what the key sees: none, some, or more than shown', async () => {
    expect(await messageFor([], 'org-a')).toMatch(
      /sees no project in organization org-a\. Set .*project_id.* \(with a personal key/
    );
    expect(await messageFor([project(1), project(2)])).toMatch(
      /sees 2 projects: proj-1 \(Project 1\), proj-2 \(Project 2\)\. Set .* to one of them\.$/
    );
    const eleven = Array.from({ length: 11 }, (_, i) => project(i));
    expect(await messageFor(eleven)).toMatch(
      /sees more than 10 projects: proj-0 .*proj-9 \(Project 9\), …\. Set/
    );
  });
});
