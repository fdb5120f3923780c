import { Agent, type Dispatcher, EnvHttpProxyAgent, request } from 'undici';

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

/** Bodies larger than this fail as unreadable (1000 operations are about 0.5 MB). */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;

export interface TransportOptions {
  /** Time to open a connection (TCP and TLS). */
  connectTimeoutMs?: number;
  /** Time from the request to the response's headers, and between two chunks of its body. */
  idleTimeoutMs?: number;
  maxBodyBytes?: number;
  env?: NodeJS.ProcessEnv;
}

/** True when the environment names a proxy (`HTTPS_PROXY`, `HTTP_PROXY`, either case). */
export function proxyConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  return ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'].some((name) =>
    Boolean(env[name]?.trim())
  );
}

/**
 * Every request to the Neon API goes through undici: one keep-alive dispatcher, through the proxy
 * the environment names (`NO_PROXY` honoured) when there is one. Redirects are never followed
 * (undici's `request` does not). Throws when a proxy variable holds no usable URL.
 */
export function createTransport(options: TransportOptions = {}): Transport {
  const maxBodyBytes = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const dispatcherOptions = {
    connect: { timeout: options.connectTimeoutMs ?? 10_000 },
    headersTimeout: options.idleTimeoutMs ?? 30_000,
    bodyTimeout: options.idleTimeoutMs ?? 30_000,
    maxResponseSize: maxBodyBytes,
    keepAliveTimeout: 4_000
  };
  const env = options.env ?? process.env;
  const dispatcher: Dispatcher = proxyConfigured(env)
    ? quietly(
        () =>
          new EnvHttpProxyAgent({
            ...dispatcherOptions,
            httpProxy: env.http_proxy ?? env.HTTP_PROXY,
            httpsProxy: env.https_proxy ?? env.HTTPS_PROXY,
            noProxy: env.no_proxy ?? env.NO_PROXY
          })
      )
    : new Agent(dispatcherOptions);

  return {
    async get(url, headers, signal) {
      const response = await request(url, { method: 'GET', headers, signal, dispatcher });
      return {
        status: response.statusCode,
        headers: response.headers,
        text: await readCapped(response.body, maxBodyBytes)
      };
    },
    close: () => dispatcher.close()
  };
}

/**
 * The body as text, failing past `max` bytes. undici's `maxResponseSize` already stops most large
 * bodies, but not on every route (its plain-HTTP proxy wrapper drops the option), so the cap is
 * also kept here, where every response passes.
 */
async function readCapped(body: AsyncIterable<Buffer> & { destroy(): unknown }, max: number) {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > max) {
      body.destroy();
      throw Object.assign(new Error(`response body larger than ${max} bytes`), {
        code: 'UND_ERR_RES_EXCEEDED_MAX_SIZE'
      });
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * undici 6 marks EnvHttpProxyAgent as experimental and says so on stderr at its first use; that line
 * would show in every proxied job's log and means nothing to its reader. Only that warning is held
 * back, only while the agent is built.
 */
function quietly<T>(build: () => T): T {
  const emitWarning = process.emitWarning;
  process.emitWarning = function (this: unknown, warning: string | Error, ...rest: unknown[]) {
    const options = rest[0] as { code?: string } | string | undefined;
    const code = typeof options === 'object' ? options?.code : rest[1];
    if (code === 'UNDICI-EHPA') return;
    return (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    return build();
  } finally {
    process.emitWarning = emitWarning;
  }
}
