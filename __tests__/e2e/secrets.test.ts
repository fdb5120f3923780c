/**
 * `request: POST /api_keys` end to end through dist/: the new key is answered once, in clear, and
 * must appear nowhere the step writes (log, outputs, summary; the command's `--json`), only in the
 * runner's `::add-mask::`.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Simulator } from '../../simulator/server.js';
import { runAction } from '../helpers/run-action.js';
import { projectInputs, simulate } from '../helpers/sim.js';
import { projectFlags, runBuiltCommand } from '../helpers/command.js';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

// The simulator's new keys (`napi_` and 64 hex digits), found by form in whatever was written.
const NEW_KEY = /napi_[0-9a-f]{64}/;
const BODY = '{"key_name":"deploy"}';

describe('a new API key through dist', () => {
  it('the action: masked, `***` in the response output, nowhere in clear', async () => {
    sim = await simulate([]);
    const run = await runAction({
      inputs: projectInputs(sim, { request: 'POST /api_keys', body: BODY })
    });
    expect(sim.requests.filter((r) => r.method === 'POST' && r.status === 200)).toHaveLength(1);
    expect(run.code).toBe(0);
    expect(run.masked.some((value) => NEW_KEY.test(value))).toBe(true);
    expect(run.everything).not.toMatch(NEW_KEY);
    expect(run.stderr).not.toMatch(NEW_KEY);
    expect(JSON.parse(run.outputs.response ?? '{}')).toMatchObject({ key: '***', name: 'api-key' });
  }, 60_000);

  it('the command: --json holds `***`, not the key', async () => {
    sim = await simulate([]);
    const dir = mkdtempSync(join(tmpdir(), 'neon-wait-secrets-'));
    try {
      const { code, stdout, stderr } = await runBuiltCommand(
        [...projectFlags(sim), '--request', 'POST /api_keys', '--body', BODY, '--json'],
        { home: dir }
      );
      expect(code).toBe(0);
      expect(sim.requests.filter((r) => r.method === 'POST' && r.status === 200)).toHaveLength(1);
      expect(stdout + stderr).not.toMatch(NEW_KEY);
      expect(JSON.parse(stdout)).toMatchObject({ response: { key: '***' } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
