import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isLoopbackHost } from '../src/neon/http.js';
import { createTransport } from '../src/neon/transport.js';
import { type LoopbackProxy, startProxy } from './helpers/proxy.js';

const CAP = 1024 * 1024;
let server: Server;
let base = '';
let proxy: LoopbackProxy;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/huge') {
      // 8 MB without a Content-Length, in 64 kB chunks: only counting can stop it.
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      let sent = 0;
      const more = (): void => {
        while (sent < 128) {
          sent++;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end();
      };
      res.on('error', () => undefined);
      more();
      return;
    }
    if (req.url === '/redirect') return void res.writeHead(302, { location: '/small' }).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy = await startProxy();
});
afterAll(async () => {
  await proxy.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const signal = (): AbortSignal => AbortSignal.timeout(10_000);

describe.each([
  ['directly', {}],
  ['through HTTPS_PROXY / HTTP_PROXY', 'proxy']
] as const)('createTransport, %s', (_name, route) => {
  const transport = () =>
    createTransport({
      maxBodyBytes: CAP,
      env: route === 'proxy' ? { HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url } : {}
    });
  // A host that is not this machine goes through the proxy (which tunnels it to the server).
  const host = (): string =>
    route === 'proxy' ? base.replace('127.0.0.1', 'api.neon.test') : base;

  it('reads a small answer', async () => {
    const t = transport();
    const before = proxy.tunnels.length;
    const response = await t.send('GET', `${host()}/small`, {}, undefined, signal());
    expect(response).toMatchObject({ status: 200, text: '{"ok":true}' });
    expect(proxy.tunnels.length > before).toBe(route === 'proxy');
    await t.close();
  });

  it('refuses a body over the cap instead of holding it in memory', async () => {
    const t = transport();
    await expect(t.send('GET', `${host()}/huge`, {}, undefined, signal())).rejects.toMatchObject({
      code: 'UND_ERR_RES_EXCEEDED_MAX_SIZE'
    });
    await t.close();
  });

  it('does not follow redirects', async () => {
    const t = transport();
    const response = await t.send('GET', `${host()}/redirect`, {}, undefined, signal());
    expect(response.status).toBe(302);
    await t.close();
  });
});

describe('a loopback API host', () => {
  it.each([['HTTP_PROXY', 'HTTPS_PROXY'], ['http_proxy'], ['http_proxy', 'https_proxy']])(
    'is reached directly, whatever the proxy variables say: %j',
    async (...names) => {
      const env: Record<string, string> = { NO_PROXY: 'example.com' };
      for (const name of names) env[name] = proxy.url;
      const t = createTransport({ env });
      const before = proxy.tunnels.length;
      expect(
        await t.send('GET', `${base}/small`, { authorization: 'Bearer k' }, undefined, signal())
      ).toMatchObject({
        status: 200
      });
      expect(proxy.tunnels.length).toBe(before);
      // The control: a host that is not this machine goes through the same proxy.
      await t.send(
        'GET',
        `${base.replace('127.0.0.1', 'api.neon.test')}/small`,
        {},
        undefined,
        signal()
      );
      expect(proxy.tunnels.length).toBe(before + 1);
      await t.close();
    }
  );

  it.each([
    ['localhost', true],
    ['LOCALHOST', true],
    ['127.0.0.1', true],
    ['127.255.0.9', true],
    ['[::1]', true],
    ['[::ffff:7f00:1]', true],
    ['128.0.0.1', false],
    ['localhost.example.com', false],
    ['127.0.0.1.example.com', false],
    ['[::2]', false],
    ['[::ffff:a00:1]', false]
  ])('%s is loopback: %s', (hostname, loopback) => {
    expect(isLoopbackHost(new URL(`http://${hostname}/`).hostname)).toBe(loopback);
  });
});

describe('createTransport configuration', () => {
  it('throws on a proxy variable that is not a URL (the action reports it as an input error)', () => {
    expect(() => createTransport({ env: { HTTPS_PROXY: 'not a url' } })).toThrow();
  });

  it('does not leave its process.emitWarning wrapper behind', () => {
    const before = process.emitWarning;
    createTransport({ env: { HTTPS_PROXY: proxy.url } });
    expect(process.emitWarning).toBe(before);
  });
});
