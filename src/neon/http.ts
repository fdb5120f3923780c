import { Agent, type Dispatcher, EnvHttpProxyAgent, request } from 'undici';

/** The methods a `request` input may use (the API's, as its OpenAPI document lists them). */
export const REQUEST_METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'] as const;
export type RequestMethod = (typeof REQUEST_METHODS)[number];

type Answer = { status: number; headers: Dispatcher.ResponseData['headers']; text: string };

/** One GET, or one request with a method and a body. Never follows redirects; rejects on network errors and when the signal aborts. */
export interface Transport {
  get(url: string, headers: Record<string, string>, signal: AbortSignal): Promise<Answer>;
  send(
    method: RequestMethod,
    url: string,
    headers: Record<string, string>,
    body: string | undefined,
    signal: AbortSignal
  ): Promise<Answer>;
  close(): Promise<void>;
}

/**
 * Every request to the Neon API: one keep-alive undici dispatcher, through the proxy the environment
 * names (`NO_PROXY` honoured) if any. A body past `maxBodyBytes` (1000 operations are about 0.5 MB)
 * fails with `UND_ERR_RES_EXCEEDED_MAX_SIZE`. Throws on an unusable proxy URL.
 */
export function createTransport({
  maxBodyBytes = 32 * 1024 * 1024,
  env = process.env
} = {}): Transport {
  const options = {
    connect: { timeout: 10_000 },
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
    maxResponseSize: maxBodyBytes,
    keepAliveTimeout: 4_000
  };
  const proxied = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'].some((name) =>
    env[name]?.trim()
  );
  const dispatcher = proxied ? proxyAgent(options, env) : new Agent(options);
  return {
    async get(url, headers, signal) {
      const response = await request(url, { method: 'GET', headers, signal, dispatcher });
      const text = await response.body.text();
      return { status: response.statusCode, headers: response.headers, text };
    },
    async send(method, url, headers, body, signal) {
      const response = await request(url, { method, headers, body, signal, dispatcher });
      const text = await response.body.text();
      return { status: response.statusCode, headers: response.headers, text };
    },
    close: () => dispatcher.close()
  };
}

/**
 * The proxy the environment names, without the line undici 6 writes to stderr on building one (it
 * calls EnvHttpProxyAgent experimental): in every proxied job's log, it would mean nothing.
 */
function proxyAgent(options: Agent.Options, env: NodeJS.ProcessEnv): EnvHttpProxyAgent {
  const emitWarning = process.emitWarning;
  process.emitWarning = ((...args: Parameters<typeof emitWarning>) => {
    if ((args[1] as { code?: string })?.code !== 'UNDICI-EHPA') emitWarning.apply(process, args);
  }) as typeof emitWarning;
  try {
    return new EnvHttpProxyAgent({
      ...options,
      httpProxy: env.http_proxy ?? env.HTTP_PROXY,
      httpsProxy: env.https_proxy ?? env.HTTPS_PROXY,
      noProxy: env.no_proxy ?? env.NO_PROXY
    });
  } finally {
    process.emitWarning = emitWarning;
  }
}
