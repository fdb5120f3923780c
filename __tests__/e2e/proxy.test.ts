import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { operation } from '../../simulator/scenario.js';
import type { Simulator } from '../../simulator/server.js';
import { type LoopbackProxy, startProxy } from '../helpers/proxy.js';
import { runAction } from '../helpers/run-action.js';
import { DEFAULT_KEY, PROJECT, simulate } from '../helpers/sim.js';

let proxy: LoopbackProxy;
let proxyUrl = '';
let tunnels: string[] = [];
let sim: Simulator;

beforeAll(async () => {
  proxy = await startProxy();
  proxyUrl = proxy.url;
  tunnels = proxy.tunnels;
  sim = await simulate([operation(PROJECT, 'create_branch', [[-1000, 'finished']])]);
});
afterAll(async () => {
  await sim.close();
  await proxy.close();
});

const run = (env: Record<string, string>) =>
  runAction({
    inputs: { api_key: DEFAULT_KEY, api_host: sim.url, project_id: PROJECT, summary_limit: '3' },
    env
  });

describe('proxies', () => {
  it('sends the requests through HTTPS_PROXY / HTTP_PROXY', async () => {
    tunnels.splice(0);
    const before = sim.requests.length;
    const result = await run({ HTTP_PROXY: proxyUrl, HTTPS_PROXY: proxyUrl });
    expect(result.code).toBe(0);
    expect(result.outputs.status).toBe('idle');
    expect(sim.requests.length).toBeGreaterThan(before);
    expect(tunnels.length).toBeGreaterThan(0);
    expect(tunnels.every((t) => t === new URL(sim.url).host)).toBe(true);
    // undici 6 calls its proxy agent experimental on stderr; users' logs must not carry that.
    expect(result.stderr).toBe('');
  });

  it('goes direct for hosts in NO_PROXY', async () => {
    tunnels.splice(0);
    const result = await run({
      HTTP_PROXY: proxyUrl,
      HTTPS_PROXY: proxyUrl,
      NO_PROXY: '127.0.0.1'
    });
    expect(result.code).toBe(0);
    expect(tunnels).toEqual([]);
  });
});
