import http from 'node:http';
import https from 'node:https';

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One GET. Never follows redirects; rejects on network errors and when the signal aborts. */
export interface Transport {
  get(url: string, headers: Record<string, string>, signal: AbortSignal): Promise<HttpResponse>;
  close(): Promise<void>;
}

/** Bodies larger than this are cut off and fail as unreadable (1000 operations are ~0.5 MB). */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

/**
 * Node's own HTTP client with keep-alive, for the usual case of no proxy: it is part of Node's
 * start-up snapshot, so a run pays nothing to load it.
 */
export function nodeTransport(): Transport {
  const agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets: 4 }),
    'https:': new https.Agent({ keepAlive: true, maxSockets: 4 })
  };
  return {
    get: (url, headers, signal) =>
      new Promise<HttpResponse>((resolve, reject) => {
        const target = new URL(url);
        const client = target.protocol === 'https:' ? https : http;
        const agent = agents[target.protocol as keyof typeof agents];
        const req = client.request(target, { method: 'GET', headers, agent, signal }, (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_BODY_BYTES) res.destroy(new Error('response body too large'));
            else chunks.push(chunk);
          });
          res.on('error', reject);
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              text: Buffer.concat(chunks).toString('utf8')
            })
          );
        });
        req.on('error', reject);
        req.end();
      }),
    close: async () => {
      agents['http:'].destroy();
      agents['https:'].destroy();
    }
  };
}

/** True when the environment names a proxy (`HTTPS_PROXY`, `HTTP_PROXY`, either case). */
export function proxyConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  return ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'].some((name) =>
    Boolean(env[name]?.trim())
  );
}

/**
 * Requests through the proxy the environment names, honouring `NO_PROXY`, with undici's
 * EnvHttpProxyAgent. Loaded only when a proxy is configured.
 */
export async function proxyTransport(): Promise<Transport> {
  const { EnvHttpProxyAgent, request } = await import('undici');
  const dispatcher = new EnvHttpProxyAgent();
  return {
    get: async (url, headers, signal) => {
      const response = await request(url, { method: 'GET', headers, signal, dispatcher });
      return {
        status: response.statusCode,
        headers: response.headers,
        text: await response.body.text()
      };
    },
    close: () => dispatcher.destroy()
  };
}

export async function defaultTransport(env: NodeJS.ProcessEnv = process.env): Promise<Transport> {
  return proxyConfigured(env) ? proxyTransport() : nodeTransport();
}
