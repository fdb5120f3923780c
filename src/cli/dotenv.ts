// `--dotenv FILE`: the branch's connection as `KEY=value` lines, for a GitLab `dotenv` report or a
// CircleCI `$BASH_ENV`. It holds secrets: written with mode 0600, never to stdout.
import { closeSync, constants, fchmodSync, fstatSync, openSync, writeSync } from 'node:fs';
import type { Report } from '../report/model.js';

/**
 * The lines, or undefined when the run has no connection (a deletion, a failure before the branch
 * was known). Values are written as they are: GitLab's dotenv reader keeps quotes as part of the
 * value, so none are added; a value with a line break would be refused by both readers, and is left out.
 */
export function dotenvText(report: Report): string | undefined {
  const connection = report.request?.branch?.connection;
  if (!connection) return undefined;
  const entries: Array<[string, string | undefined]> = [
    ['DATABASE_URL', connection.url],
    ['DATABASE_URL_POOLED', connection.pooledUrl],
    ['PGHOST', connection.host],
    ['PGHOST_POOLED', connection.pooledHost],
    ['PGDATABASE', connection.database],
    ['PGUSER', connection.role]
  ];
  const lines = entries.flatMap(([key, value]) =>
    value !== undefined && !/[\r\n]/.test(value) ? [`${key}=${value}\n`] : []
  );
  return lines.join('');
}

/**
 * Writes the file with mode 0600 (an existing file is truncated and its mode narrowed too); a run
 * without a connection writes an empty file, so that a later `source` or report finds one.
 */
export function writeDotenv(path: string, report: Report): void {
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC;
  const fd = openSync(path, flags, 0o600);
  try {
    if (fstatSync(fd).isFile()) fchmodSync(fd, 0o600);
    writeSync(fd, dotenvText(report) ?? '');
  } finally {
    closeSync(fd);
  }
}
