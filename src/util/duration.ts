/** Durations written the way people write them in workflow files: `90`, `90s`, `15m`, `1h`, `1m30s`, `500ms`, `7d`. */

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
/** The one bound on times far from now (a `since`, a Retry-After, a timeline's span). */
export const YEAR_MS = 366 * 86_400_000;

/** Parses a duration into milliseconds; a bare number means seconds. Returns undefined when malformed. */
export function parseDuration(text: string): number | undefined {
  const value = text.trim().toLowerCase();
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  const parts = [...value.matchAll(/(\d+(?:\.\d+)?)(ms|d|h|m|s)/g)];
  // The parts must spell the whole text, each unit once.
  const units = new Set(parts.map((part) => part[2]));
  if (!value || parts.map((part) => part[0]).join('') !== value || units.size < parts.length)
    return undefined;
  return Math.round(parts.reduce((ms, [, n, unit]) => ms + Number(n) * UNIT_MS[unit!]!, 0));
}

/** `75_000` → `1m15s`, `1500` → `1.5s`, `0` → `0s`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '?';
  if (ms < 1000) return ms === 0 ? '0s' : `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${Math.round(ms / 100) / 10}s`;
  const total = Math.round(ms / 1000);
  const [h, m, s] = [Math.floor(total / 3600), Math.floor((total % 3600) / 60), total % 60];
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s ? `${s}s` : ''}`;
}
