import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { operation } from '../../simulator/scenario.js';
import type { Simulator } from '../../simulator/server.js';
import { runAction } from '../helpers/run-action.js';
import { DEFAULT_KEY, PROJECT, simulate } from '../helpers/sim.js';

/** A forward proxy on loopback that tunnels CONNECT requests and counts them. */
let proxy: Server;
let proxyUrl = '';
const tunnels: string[] = [];
let sim: Simulator;

beforeAll(async () => {
  proxy = createServer((_req, res) => res.writeHead(405).end());
  proxy.on('connect', (req, client, head) => {
    tunnels.push(String(req.url));
    const [host, port] = String(req.url).split(':');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  sim = await simulate([operation(PROJECT, 'create_branch', [[-1000, 'finished']])]);
});
afterAll(async () => {
  await sim.close();
  proxy.closeAllConnections();
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
});

const run = (env: Record<string, string>) =>
  runAction({
    inputs: { api_key: DEFAULT_KEY, api_host: sim.url, project_id: PROJECT, summary_limit: '3' },
    env
  });

describe('proxies', () => {
  it('sends the requests through HTTPS_PROXY / HTTP_PROXY', async () => {
    tunnels.length = 0;
    const before = sim.requests.length;
    const result = await run({ HTTP_PROXY: proxyUrl, HTTPS_PROXY: proxyUrl });
    expect(result.code).toBe(0);
    expect(result.outputs.status).toBe('idle');
    expect(sim.requests.length).toBeGreaterThan(before);
    expect(tunnels.length).toBeGreaterThan(0);
    expect(tunnels.every((t) => t === new URL(sim.url).host)).toBe(true);
  });

  it('goes direct for hosts in NO_PROXY', async () => {
    tunnels.length = 0;
    const result = await run({
      HTTP_PROXY: proxyUrl,
      HTTPS_PROXY: proxyUrl,
      NO_PROXY: '127.0.0.1'
    });
    expect(result.code).toBe(0);
    expect(tunnels).toEqual([]);
  });
});
