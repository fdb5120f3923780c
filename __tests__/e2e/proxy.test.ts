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

// Through a proxy, the transport's tests (http.test.ts) name a host that is not this machine; the
// action accepts plain http only for a loopback host, and the simulator speaks plain http.
describe('proxies', () => {
  it.each([
    { HTTP_PROXY: 'proxy', HTTPS_PROXY: 'proxy' },
    { http_proxy: 'proxy', NO_PROXY: 'example.com' }
  ])(
    'never carry the key for a loopback API host, whatever the proxy variables say: %j',
    async (variables) => {
      tunnels.splice(0);
      const env = Object.fromEntries(
        Object.entries(variables).map(([name, value]) => [
          name,
          value === 'proxy' ? proxyUrl : value
        ])
      );
      const before = sim.requests.length;
      const result = await run(env);
      expect(result.code).toBe(0);
      expect(result.outputs.status).toBe('idle');
      expect(sim.requests.length).toBeGreaterThan(before);
      expect(tunnels).toEqual([]);
      // undici 6 calls its proxy agent experimental on stderr; users' logs must not carry that.
      expect(result.stderr).toBe('');
    }
  );
});
