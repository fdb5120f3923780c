import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';

export interface LoopbackProxy {
  url: string;
  /** `host:port` of every CONNECT tunnel opened. */
  tunnels: string[];
  close(): Promise<void>;
}

/**
 * A forward proxy on 127.0.0.1 that tunnels CONNECT requests and records them. Every tunnel ends
 * on 127.0.0.1, whatever host it names: a test names a remote-looking host to go through it (the
 * transport never proxies a loopback host).
 */
export async function startProxy(): Promise<LoopbackProxy> {
  const tunnels: string[] = [];
  const proxy: Server = createServer((_req, res) => res.writeHead(405).end());
  proxy.on('connect', (req, client, head) => {
    tunnels.push(String(req.url));
    const port = String(req.url).split(':').at(-1);
    const upstream = connect(Number(port), '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    tunnels,
    close: async () => {
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  };
}
