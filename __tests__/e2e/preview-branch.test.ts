/**
 * A pull request's preview branch through dist/: the action created it, a rerun adopted it, the
 * closing job deleted it and its rerun passed; the command's `--dotenv` file. The connection URLs
 * appear in their masked outputs (and the dotenv file) only.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeGitHub } from '../../simulator/github.js';
import { DEFAULT_KEY, project, seededBranches } from '../../simulator/scenario.js';
import type { Simulator } from '../../simulator/server.js';
import { runAction } from '../helpers/run-action.js';
import { PROJECT, projectInputs, simulate } from '../helpers/sim.js';
import { projectFlags, runBuiltCommand } from '../helpers/command.js';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const start = () =>
  simulate({
    keys: { [DEFAULT_KEY]: { kind: 'personal', user: 'user-1' } },
    projects: [project(PROJECT)],
    operations: [],
    ...seededBranches(PROJECT, [{ name: 'main' }, { name: 'preview/pr-12' }])
  });

const named = (name: string) => sim!.branches(PROJECT).filter((b) => b.name === name);

describe('a preview branch through dist', () => {
  it('opened: created; rerun: adopted; closed: deleted; closed again: already gone', async () => {
    sim = await start();
    const inputs = projectInputs(sim);
    const create = { ...inputs, create_branch: 'preview/pr-1', expires_in: '7d' };

    const opened = await runAction({ inputs: create });
    expect(opened.code).toBe(0);
    expect(opened.outputs).toMatchObject({
      created: 'true',
      branch_outcome: 'created',
      branch_name: 'preview/pr-1'
    });
    const id = opened.outputs.branch_id ?? '';
    expect(id).toMatch(/^br-/);
    expect(opened.outputs.expires_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const urls = [opened.outputs.database_url ?? '', opened.outputs.database_url_pooled ?? ''];
    for (const url of urls) expect(url).toMatch(/^postgres(ql)?:\/\//);
    expect(opened.outputs.database_host_pooled).toMatch(/-pooler/);
    const password = decodeURIComponent(new URL(urls[0]!).password);
    expect(opened.masked).toEqual(expect.arrayContaining([...urls, password]));
    const { database_url: _a, database_url_pooled: _b, ...others } = opened.outputs;
    const log = opened.stdout.replace(/^::add-mask::.*$/gm, '');
    for (const text of [JSON.stringify(others), opened.summary, log, opened.stderr])
      expect(text).not.toContain(password);
    expect(opened.summary).toMatch(/Created branch .*preview\/pr-1.* from .*main/);

    // A Cloudflare 502 on the adopted branch's connection URI is retried as on any GET (issue 42).
    sim.inject({ kind: 'status', status: 502 }, { match: '/connection_uri', times: 1 });
    const rerun = await runAction({ inputs: create });
    expect(rerun.code).toBe(0);
    expect(rerun.stdout).not.toMatch(/No connection URL/);
    expect(rerun.outputs).toMatchObject({
      created: 'false',
      branch_outcome: 'reused',
      branch_id: id
    });
    expect(rerun.outputs.database_url).toMatch(/^postgres/);
    expect(rerun.stdout).toMatch(/already exists .*reusing it/);
    expect(named('preview/pr-1')).toHaveLength(1);

    const closed = await runAction({ inputs: { ...inputs, delete_branch: 'preview/pr-1' } });
    expect(closed.code).toBe(0);
    expect(closed.outputs).toMatchObject({ status: 'finished', branch_outcome: 'deleted' });
    expect(named('preview/pr-1')).toHaveLength(0);
    expect(named('preview/pr-12')).toHaveLength(1);

    const again = await runAction({ inputs: { ...inputs, delete_branch: 'preview/pr-1' } });
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/already gone/);
    expect(again.outputs.branch_outcome).toBe('gone');
  }, 120_000);

  it('a pull request: annotated on create; the next push resets it (on_existing: reset) and renews its expiry; the command refuses --reset-branch main', async () => {
    sim = await start();
    const inputs = projectInputs(sim);
    const event = { name: 'pull_request', payload: { number: 3, pull_request: { number: 3 } } };
    const create = { ...inputs, create_branch: 'preview/pr-3', expires_in: '7d' };
    const opened = await runAction({ inputs: create, event });
    expect(opened.outputs.branch_outcome).toBe('created');
    expect(named('preview/pr-3')[0]?.annotations).toMatchObject({
      'github-pr-number': '3',
      'github-commit-repo': 'octo-org/octo-repo'
    });

    const pushed = await runAction({ inputs: { ...create, on_existing: 'reset' }, event });
    expect(pushed.code).toBe(0);
    expect(pushed.outputs).toMatchObject({
      status: 'finished',
      branch_outcome: 'reset',
      created: 'false',
      branch_id: opened.outputs.branch_id
    });
    expect(pushed.outputs.database_url).toMatch(/^postgres/);
    expect(pushed.stdout).toMatch(/Renewed the expiry of branch preview\/pr-3/);
    expect(pushed.summary).toMatch(/Reset branch .*preview\/pr-3/);
    expect(named('preview/pr-3')[0]?.lastResetAt).toBeDefined();

    const before = sim.requests.length;
    const refused = await runBuiltCommand([...projectFlags(sim), '--reset-branch', 'main'], {
      home: tmpdir()
    });
    expect(refused.code).toBe(2);
    expect(refused.stdout + refused.stderr).toMatch(/--reset-branch names main .*default branch/);
    expect(sim.requests.slice(before).filter((r) => r.method !== 'GET')).toHaveLength(0);
  }, 120_000);

  it('the command: --dotenv writes the URLs (mode 0600) for a shell to source, never stdout', async () => {
    sim = await start();
    const dir = mkdtempSync(join(tmpdir(), 'neon-wait-dotenv-'));
    try {
      const dotenv = join(dir, 'branch.env');
      const { code, stdout, stderr } = await runBuiltCommand(
        [...projectFlags(sim), '--create-branch', 'preview/pr-1', '--dotenv', dotenv, '--json'],
        { home: dir }
      );
      expect(code).toBe(0);
      // Read as a shell reads it (the default format): sourced, every variable exported.
      const sourced = spawnSync('bash', ['-c', 'set -a; . "$1"; env', '_', dotenv], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH },
        stdio: ['ignore', 'pipe', 'pipe']
      }).stdout;
      const env = Object.fromEntries(
        sourced.split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)])
      );
      expect(env.DATABASE_URL).toMatch(/^postgres(ql)?:\/\/.*&channel_binding=require$/);
      expect(env.DATABASE_URL_POOLED).toMatch(/-pooler/);
      expect(Object.keys(env)).toEqual(
        expect.arrayContaining(['PGHOST', 'PGHOST_POOLED', 'PGDATABASE', 'PGUSER'])
      );
      expect(statSync(dotenv).mode & 0o777).toBe(0o600);
      const password = decodeURIComponent(new URL(env.DATABASE_URL!).password);
      expect(stdout + stderr).not.toContain(password);
      expect(JSON.parse(stdout)).toMatchObject({
        created: true,
        branch_outcome: 'created',
        branch_name: 'preview/pr-1'
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('a nightly sweep through dist', () => {
  it('deletes the branches of merged pull requests and those older than older_than; outputs and summary say which and why', async () => {
    const token = 'ghs_e2e_sweep';
    const gh = await startFakeGitHub(
      { [token]: { author: 'github-actions[bot]' } },
      { 1: { state: 'merged' }, 2: { state: 'open' } }
    );
    try {
      sim = await simulate({
        keys: { [DEFAULT_KEY]: { kind: 'personal', user: 'user-1' } },
        projects: [project(PROJECT)],
        operations: [],
        ...seededBranches(PROJECT, [
          { name: 'main' },
          { name: 'preview/pr-1' },
          { name: 'preview/pr-2', created: -20 * 86_400_000 },
          { name: 'preview/pr-3', created: -20 * 86_400_000 }
        ])
      });
      const swept = await runAction({
        inputs: {
          ...projectInputs(sim),
          sweep_branches: 'preview/pr-{pr}',
          older_than: '14d',
          github_token: token
        },
        env: { GITHUB_API_URL: gh.url }
      });
      expect(swept.code).toBe(0);
      expect(sim.branches(PROJECT).map((b) => b.name)).toEqual(['main', 'preview/pr-2']);
      const deleted = JSON.parse(swept.outputs.swept ?? '[]') as Array<{
        name: string;
        reason: string;
      }>;
      expect(deleted.map((d) => [d.name, d.reason])).toEqual([
        ['preview/pr-3', 'older than 14d (created 20d ago)'],
        ['preview/pr-1', 'pull request #1 merged']
      ]);
      expect(swept.outputs).toMatchObject({ branches_count: '2', branches_limit: '25' });
      expect(swept.summary).toMatch(/preview\/pr-2.*: kept: open pull request/);
      expect(swept.masked).toContain(token);
      expect(swept.stdout.replace(/^::add-mask::.*$/gm, '')).not.toContain(token);
    } finally {
      await gh.close();
    }
  });
});
