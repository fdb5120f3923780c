/**
 * Database hosts compared as names, never parsed: Neon's hosts come in forms that change (the
 * endpoint's own `ep-….us-east-2.aws.neon.tech`, its `-pooler` form, and since compute groups
 * each compute's host on a cell domain, `ep-…-ffk.c-5.us-east-2.aws.neon.tech`), so which
 * endpoint a host names is what the API answers for it, not what its first label looks like.
 */

/**
 * The form two names of one host share: DNS names are case-insensitive, and a trailing dot
 * (`….neon.tech.`, the fully qualified form) names the same host.
 */
export function hostKey(host: string): string {
  const lower = host.toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

/**
 * Whether a host is on Neon's domain, and so must be one of the project's endpoints or computes
 * to be used with `branch_id`. Any other host (a proxy, a local server, a custom domain) is not
 * Neon's to answer for.
 */
export function isNeonHost(host: string): boolean {
  return hostKey(host).endsWith('.neon.tech');
}

/** The endpoint's pooled host, as the service forms it: `-pooler` added to the first label. */
export function pooledHost(host: string): string {
  const dot = host.indexOf('.');
  return dot < 0 ? `${host}-pooler` : `${host.slice(0, dot)}-pooler${host.slice(dot)}`;
}
