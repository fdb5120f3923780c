import type { IncomingHttpHeaders } from 'node:http';

// HTTP as the action speaks it: the methods, what a transport does, the API's address. No
// library here: what only names these (the inputs, the report's links) loads no HTTP client.

/** Neon's own API: the default `api_host`, and the one whose console the report may link to. */
export const NEON_API_HOST = 'https://console.neon.tech/api/v2';

/** The methods a `request` input may use (the API's, as its OpenAPI document lists them). */
export const REQUEST_METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'] as const;
export type RequestMethod = (typeof REQUEST_METHODS)[number];

/** An answer as every reader takes it: the whole body read as text. */
type Answer = { status: number; headers: IncomingHttpHeaders; text: string };

/** One request, with a method and a body. Never follows redirects; rejects on network errors and when the signal aborts. */
export interface Transport {
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
 * Whether a URL's host name (as `URL` writes it) is this machine: `localhost`, 127.0.0.0/8, `::1`
 * (or 127.0.0.0/8 mapped into IPv6).
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return (
    host === 'localhost' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) ||
    host === '::1' ||
    /^::ffff:7f[\da-f]{2}:[\da-f]{1,4}$/.test(host)
  );
}
