/**
 * Which Neon compute endpoint a database host names: Neon's hosts are
 * `ep-<adjective>-<noun>-<number>.<region>.aws.neon.tech`, the pooled one with `-pooler` added to
 * the first label. Any other host (a proxy, a local server, a custom domain) names none.
 */
const ENDPOINT_LABEL = /^(ep-[a-z0-9-]+?)(-pooler)?$/;

export function neonEndpointId(host: string): string | undefined {
  const [first, ...rest] = host.toLowerCase().split('.');
  if (rest.at(-1) !== 'tech' || rest.at(-2) !== 'neon') return undefined;
  return ENDPOINT_LABEL.exec(first ?? '')?.[1];
}
