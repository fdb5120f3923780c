/**
 * `request` end to end through dist/: the action (outputs file, summary, log) and the command
 * (`--json`, JUnit), against the simulator's mutations. The answer's password and URI appear in
 * the `database_url` output only.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Simulator } from '../../simulator/server.js';
import { runAction } from '../helpers/run-action.js';
import { PROJECT, projectInputs, simulate } from '../helpers/sim.js';
import { projectFlags, runBuiltCommand } from '../helpers/command.js';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const BODY = '{"endpoints":[{"type":"read_write"}]}';

/** The connection URI's secrets, as the created branch's answer holds them. */
function secretsOf(uri: string): string[] {
  const url = new URL(uri);
  return [uri, decodeURIComponent(url.password)];
}

describe('request through dist', () => {
  it('the action: created, waited for, the URI only in the database_url output', async () => {
    sim = await simulate([]);
    const run = await runAction({
      inputs: projectInputs(sim, { request: 'POST /projects/{project_id}/branches', body: BODY })
    });
    expect(run.code).toBe(0);
    expect(run.outputs.status).toBe('finished');
    expect(run.outputs.request_status).toBe('201');
    expect(run.outputs.request_attempts).toBe('1');
    expect(run.outputs.branch_id).toMatch(/^br-/);
    expect(run.outputs.endpoint_id).toMatch(/^ep-/);
    const uri = run.outputs.database_url ?? '';
    expect(uri).toMatch(/^postgres(ql)?:\/\//);
    const secrets = secretsOf(uri);
    expect(run.masked).toEqual(expect.arrayContaining(secrets));
    const { database_url: _held, ...others } = run.outputs;
    // The `::add-mask::` lines are the runner's, consumed before the log is shown.
    const log = run.stdout.replace(/^::add-mask::.*$/gm, '');
    for (const secret of secrets) {
      expect(JSON.stringify(others)).not.toContain(secret);
      expect(run.summary).not.toContain(secret);
      expect(log).not.toContain(secret);
      expect(run.stderr).not.toContain(secret);
    }
    expect(JSON.parse(run.outputs.response ?? '{}')).toMatchObject({
      connection_uris: [{ connection_uri: '***' }]
    });
  }, 60_000);

  it('the command: --json and JUnit hold no password; --body from stdin', async () => {
    sim = await simulate([]);
    const dir = mkdtempSync(join(tmpdir(), 'neon-wait-request-'));
    try {
      const junit = join(dir, 'junit.xml');
      const { code, stdout, stderr } = await runBuiltCommand(
        [
          ...projectFlags(sim),
          ...['--request', 'POST /projects/{project_id}/branches', '--body', '-'],
          ...['--json', '--junit', junit]
        ],
        { home: dir, stdin: BODY }
      );
      expect(code).toBe(0);
      const json = JSON.parse(stdout) as Record<string, unknown>;
      expect(json).toMatchObject({ status: 'finished', request_status: 201, request_attempts: 1 });
      expect(json).not.toHaveProperty('database_url');
      const created = sim.branches(PROJECT).find((b) => b.id === json.branch_id);
      expect(created).toBeDefined();
      const written = stdout + stderr + readFileSync(junit, 'utf8');
      expect(written).not.toMatch(/postgres(ql)?:\/\/[^*\s"]*:[^*@\s"]+@/);
      expect(sim.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
