import { afterEach, describe, expect, it } from '@jest/globals';
import {
  DEFAULT_KEY,
  lock,
  operation,
  project,
  type Scenario,
  seededBranches
} from '../simulator/scenario.js';
import { resultFields } from '../src/outputs.js';
import { renderJunit } from '../src/cli/junit.js';
import { FORMATS } from '../src/cli/result.js';
import { buildReport } from '../src/report/model.js';
import { renderSummary } from '../src/report/summary.js';
import { InProcess } from './helpers/in-process.js';
import { PROJECT } from './helpers/sim.js';

// create_branch and delete_branch through `waitFor`, against the simulator's branches by name, on
// simulated time: get-or-create, adopt on a rerun, a lost answer, a crowd, deletion.

let run: InProcess | undefined;
afterEach(async () => {
  await run?.dispose();
  run = undefined;
});

/** main, dev, preview/pr-12 (so that a search for preview/pr-1 also matches it), a protected one. */
function scenario(extra: Scenario['operations'] = []): Scenario {
  const seeded = seededBranches(PROJECT, [
    { name: 'main' },
    { name: 'dev' },
    { name: 'preview/pr-12' },
    { name: 'release', protected: true }
  ]);
  return {
    keys: { [DEFAULT_KEY]: { kind: 'personal', user: 'user-1' } },
    projects: [project(PROJECT)],
    operations: extra,
    ...seeded
  };
}

const CREATE = { project_id: PROJECT, create_branch: 'preview/pr-1' };
const named = (name: string) => run!.sim.branches(PROJECT).filter((b) => b.name === name);
const creates = () =>
  run!.sim.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/branches'));

describe('create_branch: get or create by exact name', () => {
  it('creates it from the default branch with a compute, waits, and gives its connection', async () => {
    run = await InProcess.start(scenario());
    const { result } = await run.wait({ ...CREATE, expires_in: '7d' });
    expect(result.status).toBe('finished');
    const branch = result.request?.branch;
    expect(branch).toMatchObject({ name: 'preview/pr-1', outcome: 'created', parentName: 'main' });
    expect(named('preview/pr-1')).toHaveLength(1);
    expect(branch?.id).toBe(named('preview/pr-1')[0]?.id);
    // Seven days on the service's clock, to the second.
    const expires = Date.parse(branch?.expiresAt ?? '');
    const sent = creates()[0]!.at + Date.UTC(2026, 0, 1);
    expect(Math.abs(expires - sent - 7 * 86_400_000)).toBeLessThan(2000);
    expect(branch?.connection?.url).toMatch(/^postgres(ql)?:\/\//);
    expect(branch?.connection?.pooledHost).toMatch(/-pooler/);
    expect(branch?.readyMs).toBeGreaterThan(0);
    const report = buildReport(result, { waited: true, timeoutMs: 600_000, requests: 0 });
    expect(resultFields(report)).toMatchObject({
      branch_id: branch?.id,
      branch_name: 'preview/pr-1',
      branch_outcome: 'created',
      created: true,
      database_host: branch?.connection?.host
    });
    // The URL is a secret: never in the command's --json.
    expect(JSON.stringify(resultFields(report))).not.toContain(branch?.connection?.url ?? '?');
  });

  it("takes the created branch's connection from the creation's answer: no request asks it again", async () => {
    run = await InProcess.start(scenario());
    const { result } = await run.wait(CREATE);
    const connection = result.request?.branch?.connection;
    // What a run asks, by route, among the simulator's requests from `from` on.
    const asked = (route: string, from = 0) =>
      run!.sim.requests.slice(from).filter((r) => r.route === `GET /projects/{project_id}/${route}`)
        .length;
    // One create: the parent, the creation, then only the wait's looks.
    expect(asked('branches')).toBe(1);
    expect(creates()).toHaveLength(1);
    expect(asked('branches/{branch_id}/databases')).toBe(0);
    expect(asked('connection_uri')).toBe(0);
    // The same URLs the API gives when asked.
    const uri = async (pooled: boolean) => {
      const query = new URLSearchParams({
        branch_id: result.request?.branch?.id ?? '',
        database_name: connection?.database ?? '',
        role_name: connection?.role ?? '',
        ...(pooled && { pooled: 'true' })
      });
      const answer = await fetch(`${run!.sim.url}/projects/${PROJECT}/connection_uri?${query}`, {
        headers: { authorization: `Bearer ${DEFAULT_KEY}` }
      });
      return ((await answer.json()) as { uri?: string }).uri;
    };
    const [direct, pooled] = [await uri(false), await uri(true)];
    expect(direct).toMatch(/^postgresql:\/\//);
    expect(connection?.url).toBe(direct);
    expect(connection?.pooledUrl).toBe(pooled);
    expect(connection?.pooledHost).toBe(new URL(pooled ?? '').hostname);
    // Names asked that are the answer's own change nothing.
    let from = run.sim.requests.length;
    await run.wait({
      ...CREATE,
      create_branch: 'preview/pr-2',
      role_name: connection?.role ?? '',
      database_name: connection?.database ?? ''
    });
    expect(asked('connection_uri', from)).toBe(0);
    // Another role than the answer's is asked of the API (the simulator knows none: no URL).
    from = run.sim.requests.length;
    const other = await run.wait({ ...CREATE, create_branch: 'preview/pr-3', role_name: 'app' });
    expect(asked('branches/{branch_id}/databases', from)).toBe(1);
    expect(asked('connection_uri', from)).toBe(1);
    expect(other.result.request?.branch?.connection).toBeUndefined();
    // An adopted branch has no such answer: its connection is asked, direct and pooled.
    from = run.sim.requests.length;
    const adopted = await run.wait(CREATE);
    expect(adopted.result.request?.branch?.connection?.url).toBe(direct);
    expect(asked('connection_uri', from)).toBe(2);
  });

  it("a URI on another host than the answer's `host` (a local server): the pooled URL is asked", async () => {
    const postgres = {
      host: '127.0.0.1',
      port: 5433,
      user: 'neondb_owner',
      password: 'pw-local',
      database: 'neondb'
    };
    run = await InProcess.start(scenario(), { postgres });
    const { result } = await run.wait(CREATE);
    const connection = result.request?.branch?.connection;
    expect(connection?.url).toBe('postgresql://neondb_owner:pw-local@127.0.0.1:5433/neondb');
    const asked = run.sim.requests.filter(
      (r) => r.route === 'GET /projects/{project_id}/connection_uri'
    );
    expect(asked.map((r) => r.query.pooled)).toEqual(['true']);
    expect(connection?.pooledUrl).toBe(connection?.url);
  });

  it('a rerun adopts the branch (409): created false, the same id, one branch; preview/pr-12 never picked', async () => {
    run = await InProcess.start(scenario());
    const first = await run.wait(CREATE);
    const second = await run.wait(CREATE);
    expect(second.result.status).toBe('idle');
    expect(second.result.request?.status).toBe(409);
    expect(second.result.request?.branch).toMatchObject({
      id: first.result.request?.branch?.id,
      outcome: 'reused'
    });
    expect(second.result.request?.branch?.connection?.url).toMatch(/^postgres/);
    expect(second.log.some((l) => /already exists .*reusing it/.test(l))).toBe(true);
    expect(named('preview/pr-1')).toHaveLength(1);
    // The reports say which: one JUnit case named `branch` on both runs (and in every pull request),
    // its name a property; the summary's line.
    const reports = [first, second].map(({ result }) =>
      buildReport(result, { waited: true, timeoutMs: 600_000, requests: 0 })
    );
    const [created, reused] = reports.map(renderJunit);
    expect(created).toMatch(
      /name="branch"[^>]*>\s*<properties>\s*<property name="branch_name" value="preview\/pr-1"\/>[^]*?<system-out>br-[^:]+: created from main</
    );
    expect(reused).toMatch(
      /name="branch"[^>]*>\s*<properties>\s*<property name="branch_name" value="preview\/pr-1"\/>[^]*?<system-out>br-[^:]+: reused from main</
    );
    expect(renderSummary(reports[1]!)).toMatch(
      /Reused branch <code>preview\/pr-1<\/code> .* from <code>main<\/code> · ready in /
    );
  });

  it('an adopted branch of another parent: a warning, and it is reused as it is', async () => {
    run = await InProcess.start(scenario());
    await run.wait(CREATE);
    const { result, log } = await run.wait({ ...CREATE, parent: 'dev' });
    expect(result.request?.branch?.outcome).toBe('reused');
    expect(log.some((l) => /^warning: .*not from dev/.test(l))).toBe(true);
  });

  it('the answer lost after the create was applied: sent again, 409 adopts, created true, one branch', async () => {
    run = await InProcess.start(scenario());
    run.sim.inject({ kind: 'reset-after-apply' }, { method: 'POST', match: '/branches', times: 1 });
    const { result } = await run.wait(CREATE);
    expect(result.status).not.toMatch(/unconfirmed|error/);
    expect(creates().length).toBe(2);
    expect(result.request?.branch?.outcome).toBe('created');
    expect(named('preview/pr-1')).toHaveLength(1);
  });

  it('a rerun after a lost answer says created false (the branch is older than its first send)', async () => {
    run = await InProcess.start(scenario());
    await run.wait(CREATE);
    run.sim.inject({ kind: 'reset' }, { method: 'POST', match: '/branches', times: 1 });
    const { result } = await run.wait(CREATE);
    expect(result.request?.branch?.outcome).toBe('reused');
  });

  it('ten jobs at once: one branch, each ends with its id, exactly one says created', async () => {
    run = await InProcess.start(scenario());
    run.sim.gather(10, { method: 'POST', match: '/branches' });
    const jobs = await run.waitAll(Array.from({ length: 10 }, () => CREATE));
    expect(named('preview/pr-1')).toHaveLength(1);
    const id = named('preview/pr-1')[0]?.id;
    for (const job of jobs) expect(job.result.request?.branch?.id).toBe(id);
    expect(jobs.filter((job) => job.result.request?.branch?.outcome === 'created')).toHaveLength(1);
    expect(jobs.every((job) => !job.result.failure)).toBe(true);
  });

  it('a project locked 6 s: the create rides it out as request does', async () => {
    run = await InProcess.start(scenario([lock(PROJECT, -1000, 7000)]));
    const { result } = await run.wait(CREATE);
    expect(result.request?.branch?.outcome).toBe('created');
    expect(result.request?.holders.length).toBeGreaterThan(0);
    const accepted = creates().filter((r) => r.status === 201);
    expect(accepted).toHaveLength(1);
    expect(accepted[0]!.at).toBeLessThanOrEqual(7000);
  });

  it('a lock that ends 4 s before the deadline: not sent, the floor named by the kind', async () => {
    run = await InProcess.start(scenario([lock(PROJECT, -1000, 17_000)]));
    const { result } = await run.wait({ ...CREATE, timeout: '20s' });
    expect(result.status).toBe('timeout');
    expect(result.failure).toMatch(
      /POST \/projects\/.*\/branches not sent: \d(\.\d)?s left, a create_branch needs at least 5s to be waited for/
    );
    expect(creates().filter((r) => r.status === 201)).toHaveLength(0);
  });

  it('a timeout too short for a create: nothing sent, said once, and no API error (issue 44 item 16)', async () => {
    run = await InProcess.start(scenario());
    const { result } = await run.wait({ ...CREATE, timeout: '3s' });
    expect(result.status).toBe('timeout');
    expect(result.failure).toMatch(
      /^POST \/projects\/\S+\/branches not sent: 3s left, a create_branch needs at least 5s to be waited for\. Give it more time with input 'timeout'\.$/
    );
    expect(result.lastError).toBeUndefined();
    const report = buildReport(result, { waited: true, timeoutMs: 3000, requests: 0 });
    const json = FORMATS.json.render({ report, code: 1, reasons: [] });
    expect(JSON.parse(json)).toMatchObject({ last_api_error: null });
    expect(creates()).toHaveLength(0);
  });

  it('a 409 whose branch is deleted before the lookup: the name is free, the create goes again (issue 44 item 11)', async () => {
    run = await InProcess.start(scenario());
    const conflict = {
      kind: 'status',
      status: 409,
      message: 'branch with the provided name "preview/pr-1" already exists'
    } as const;
    run.sim.inject(conflict, { method: 'POST', match: '/branches', times: 1 });
    const { result, log } = await run.wait(CREATE);
    expect(result.status).toBe('finished');
    expect(result.request?.branch?.outcome).toBe('created');
    expect(result.request?.attempts).toBe(2);
    expect(creates().map((r) => r.status)).toEqual([409, 201]);
    expect(log).toContainEqual(
      expect.stringMatching(
        /answered HTTP 409: branch with .* but no branch is named exactly preview\/pr-1: deleted meanwhile, or another conflict; sending the create again\.$/
      )
    );
  });

  it('a 409 for another reason: sent 3 times at most, then the API error with its message (issue 44 item 11)', async () => {
    run = await InProcess.start(scenario());
    const conflict = {
      kind: 'status',
      status: 409,
      code: 'ENDPOINTS_CONFLICT',
      message: 'read_write endpoint exists'
    } as const;
    run.sim.inject(conflict, { method: 'POST', match: '/branches', times: Infinity });
    const { result } = await run.wait(CREATE);
    expect(result.status).toBe('api_error');
    expect(result.failure).toMatch(
      /^POST \/projects\/\S+\/branches answered HTTP 409: ENDPOINTS_CONFLICT: read_write endpoint exists, but no branch is named exactly preview\/pr-1 \(3 times\): not a name taken, so not adopted\.$/
    );
    expect(creates()).toHaveLength(3);
  });

  /** preview/pr-1 exists, its compute still starting until 9 s (the project locked until then). */
  async function startBeingMade(): Promise<{ id: string; run: InProcess }> {
    const seeded = scenario();
    const made = seededBranches(PROJECT, [{ name: 'main' }, { name: 'preview/pr-1' }]).branches[1]!;
    const making = operation(
      PROJECT,
      'start_compute',
      [
        [-1000, 'running'],
        [9000, 'finished']
      ],
      {
        branch_id: made.id
      }
    );
    run = await InProcess.start({
      ...seeded,
      branches: [...seeded.branches!, made],
      operations: [making]
    });
    return { id: made.id, run };
  }

  it('an adopted branch deleted while the step waits for it: api_error, no connection handed on (issue 44 item 5)', async () => {
    const made = await startBeingMade();
    // Another job deletes it as soon as the lock lets it (9 s), while this step waits for it.
    const [creating, deleting] = await made.run.waitAll([
      CREATE,
      { project_id: PROJECT, delete_branch: 'preview/pr-1' }
    ]);
    expect(deleting?.result.request?.branch?.outcome).toBe('deleted');
    const result = creating!.result;
    expect(result.status).toBe('api_error');
    expect(result.failure).toBe(
      `Branch preview/pr-1 (${made.id}) was deleted while this step adopted it: not ready, and its connection is not given. Run the step again to create it anew.`
    );
    expect(result.request?.databaseUrl).toBeUndefined();
    const report = buildReport(result, { waited: true, timeoutMs: 600_000, requests: 0 });
    expect(resultFields(report).database_host).toBeUndefined();
    expect(creates()).toHaveLength(1);
  });

  it('with watch_job, an adopted branch still being made is awaited before the step hands over (issue 44 item 10)', async () => {
    const made = await startBeingMade();
    const { result, jobMark } = await made.run.wait({ ...CREATE, watch_job: 'true' });
    expect(result.request?.branch?.outcome).toBe('reused');
    expect(result.status).toBe('idle');
    expect(result.request?.branch?.readyMs).toBeGreaterThanOrEqual(9000);
    expect(jobMark).toBeDefined();
  });

  it('a parent that does not exist: an input error naming parent, nothing created', async () => {
    run = await InProcess.start(scenario());
    const { result } = await run.wait({ ...CREATE, parent: 'preview/pr-1' });
    expect(result.status).toBe('input_error');
    expect(result.failure).toMatch(/^Input 'parent' names no branch .*'preview\/pr-1'/);
    expect(creates()).toHaveLength(0);
  });
});

describe('create_branch: a connection URL the API does not give', () => {
  it('only the pooled one missing: the warning says pooled, and the direct URL is kept', async () => {
    run = await InProcess.start(scenario());
    run.sim.inject({ kind: 'status', status: 403 }, { match: 'pooled=true', times: Infinity });
    const { result, log } = await run.wait({ project_id: PROJECT, create_branch: 'preview/pr-12' });
    expect(result.request?.branch?.connection?.url).toMatch(/^postgresql:/);
    expect(result.request?.branch?.connection?.pooledUrl).toBeUndefined();
    const warnings = log.filter((l) => l.startsWith('warning: '));
    expect(warnings).toEqual([
      expect.stringMatching(/^warning: No pooled connection URL for branch br-\S+ \(.*403/)
    ]);
  });
});

describe('delete_branch: by exact name or id', () => {
  it('deletes it and waits for the deletion; a second run passes: already gone', async () => {
    run = await InProcess.start(scenario());
    await run.wait(CREATE);
    const { result } = await run.wait({ project_id: PROJECT, delete_branch: 'preview/pr-1' });
    expect(result.status).toBe('finished');
    expect(result.request?.branch).toMatchObject({ name: 'preview/pr-1', outcome: 'deleted' });
    expect(named('preview/pr-1')).toHaveLength(0);
    expect(named('preview/pr-12')).toHaveLength(1);
    const again = await run.wait({ project_id: PROJECT, delete_branch: 'preview/pr-1' });
    expect(again.result.status).toBe('idle');
    expect(again.result.request?.branch?.outcome).toBe('gone');
    expect(again.log.some((l) => /already gone/.test(l))).toBe(true);
  });

  it('a name already gone leaves branch_id empty: the name is no id', async () => {
    run = await InProcess.start(scenario());
    const { result } = await run.wait({ project_id: PROJECT, delete_branch: 'preview/pr-9' });
    expect(result.status).toBe('idle');
    const report = buildReport(result, { waited: true, timeoutMs: 600_000, requests: 0 });
    const fields = resultFields(report);
    expect(fields).toMatchObject({ branch_name: 'preview/pr-9' });
    expect(fields.branch_id).toBeUndefined();
    expect(renderSummary(report)).toMatch(/Branch <code>preview\/pr-9<\/code> was already gone\n/);
    expect(renderJunit(report)).not.toMatch(/branch_id" value="preview/);
  });

  it('a lock that ends 4 s before the deadline: not sent, the floor named by the kind', async () => {
    run = await InProcess.start(scenario([lock(PROJECT, -1000, 17_000)]));
    const { result } = await run.wait({
      project_id: PROJECT,
      delete_branch: 'preview/pr-12',
      timeout: '20s'
    });
    expect(result.status).toBe('timeout');
    expect(result.failure).toMatch(
      /DELETE \/projects\/.*\/branches\/br-[^ ]+ not sent: \d(\.\d)?s left, a delete_timeline needs at least 5s to be waited for/
    );
    expect(named('preview/pr-12')).toHaveLength(1);
  });

  it.each([
    ['main', /default branch/],
    ['release', /protected branch/]
  ])('%s is refused as an input error, and no DELETE is sent', async (name, why) => {
    run = await InProcess.start(scenario());
    const { result } = await run.wait({ project_id: PROJECT, delete_branch: name });
    expect(result.status).toBe('input_error');
    expect(result.failure).toMatch(/^Input 'delete_branch' names /);
    expect(result.failure).toMatch(why);
    expect(run.sim.requests.filter((r) => r.method === 'DELETE')).toHaveLength(0);
  });
});

describe('a text that is one branch name and another branch id (issue 44 item 2): an error, never a guess', () => {
  const devId = () => named('dev')[0]!.id;
  const changes = () => run!.sim.requests.filter((r) => r.method !== 'GET');

  it('create_branch of a name that is the id of dev: refused, nothing created', async () => {
    run = await InProcess.start(scenario());
    for (const parent of ['', 'dev']) {
      const { result } = await run.wait({ ...CREATE, create_branch: devId(), parent });
      expect(result.status).toBe('input_error');
      expect(result.failure).toBe(
        `Input 'create_branch' '${devId()}' is the id of branch dev: a branch of that name could not be told from it by a name or id. Choose another name. Nothing was changed.`
      );
    }
    expect(changes()).toHaveLength(0);
  });

  it('delete_branch and parent naming a branch by name and another by id: refused, dev kept', async () => {
    // The clash as a user meets it: a branch named as dev's id (made by hand, or before this rule).
    const seeded = scenario();
    const id = seededBranches(PROJECT, [{ name: 'dev' }]).branches[0]!.id;
    const clash = { ...seeded.branches![2]!, id: 'br-clash-1', name: id };
    run = await InProcess.start({ ...seeded, branches: [...seeded.branches!, clash] });
    const deleting = await run.wait({ project_id: PROJECT, delete_branch: id });
    expect(deleting.result.status).toBe('input_error');
    expect(deleting.result.failure).toBe(
      `Input 'delete_branch' '${id}' names two branches: branch ${id} (br-clash-1) by its name, and the id of branch dev. ` +
        `Name the one meant otherwise: 'br-clash-1' (the id of the first) or 'dev' (the name of the second). Nothing was changed.`
    );
    const parent = await run.wait({ ...CREATE, parent: id });
    expect(parent.result.status).toBe('input_error');
    expect(parent.result.failure).toMatch(/^Input 'parent' '.*' names two branches: /);
    expect(changes()).toHaveLength(0);
    expect(named('dev')).toHaveLength(1);
    // Named otherwise, each is found: dev by its name, the other by its id.
    const byName = await run.wait({ ...CREATE, parent: 'dev' });
    expect(byName.result.request?.branch?.parentName).toBe('dev');
    const byId = await run.wait({ project_id: PROJECT, delete_branch: 'br-clash-1' });
    expect(byId.result.request?.branch).toMatchObject({ id: 'br-clash-1', outcome: 'deleted' });
    expect(named('dev')).toHaveLength(1);
  });
});
