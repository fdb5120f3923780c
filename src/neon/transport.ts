import { Agent, type Dispatcher, EnvHttpProxyAgent, request } from 'undici';
import { isLoopbackHost, type Transport } from './http.js';

/**
 * Every request to the Neon API: keep-alive undici dispatchers, through the proxy the environment
 * names (`NO_PROXY` honoured) if any, but never for a loopback host: the key goes in clear (plain
 * http) only to this machine, whatever the proxy variables say. A body past `maxBodyBytes` (1000
 * operations are about 0.5 MB) fails with `UND_ERR_RES_EXCEEDED_MAX_SIZE`. Throws on an unusable
 * proxy URL.
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
  const direct = new Agent(options);
  const proxy = proxied ? proxyAgent(options, env) : undefined;
  const dispatcherFor = (url: string): Dispatcher =>
    proxy && !isLoopbackHost(new URL(url).hostname) ? proxy : direct;
  const send: Transport['send'] = async (method, url, headers, body, signal) => {
    const dispatcher = dispatcherFor(url);
    const response = await request(url, { method, headers, body, signal, dispatcher });
    const text = await response.body.text();
    return { status: response.statusCode, headers: response.headers, text };
  };
  return {
    send,
    close: async () => void (await Promise.all([direct.close(), proxy?.close()]))
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
