import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTransport } from '../src/neon/http.js';
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

  it('reads a small answer', async () => {
    const t = transport();
    const before = proxy.tunnels.length;
    const response = await t.get(`${base}/small`, {}, signal());
    expect(response).toMatchObject({ status: 200, text: '{"ok":true}' });
    expect(proxy.tunnels.length > before).toBe(route === 'proxy');
    await t.close();
  });

  it('refuses a body over the cap instead of holding it in memory', async () => {
    const t = transport();
    await expect(t.get(`${base}/huge`, {}, signal())).rejects.toMatchObject({
      code: 'UND_ERR_RES_EXCEEDED_MAX_SIZE'
    });
    await t.close();
  });

  it('does not follow redirects', async () => {
    const t = transport();
    const response = await t.get(`${base}/redirect`, {}, signal());
    expect(response.status).toBe(302);
    await t.close();
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
