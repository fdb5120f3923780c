// `--dotenv FILE`: the branch's connection as variables, for a shell (`set -a; . FILE`, CircleCI's
// `$BASH_ENV`) or a GitLab `dotenv` report. No one file serves both: a shell needs the URL quoted
// (it holds `&`), and GitLab keeps quotes as part of the value. It holds secrets: written with mode
// 0600, never to stdout.
import { closeSync, constants, fchmodSync, fstatSync, openSync, writeSync } from 'node:fs';
import type { DOTENV_FORMATS } from '../inputs.js';
import type { Report } from '../report/model.js';

export type DotenvFormat = (typeof DOTENV_FORMATS)[number];

/** One variable's line in each format; undefined when that reader could not read the value. */
const LINES = {
  // Single quotes keep every character as it is; a quote itself is closed, escaped and reopened.
  shell: (key, value) => `export ${key}='${value.replaceAll("'", `'\\''`)}'\n`,
  // GitLab's reader takes the value as it is written, quotes included, and refuses line breaks.
  gitlab: (key, value) => (/[\r\n]/.test(value) ? undefined : `${key}=${value}\n`)
} satisfies Record<DotenvFormat, (key: string, value: string) => string | undefined>;

/** The lines, or undefined when the run has no connection (a failure before the branch was known). */
export function dotenvText(report: Report, format: DotenvFormat): string | undefined {
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
  const line = LINES[format];
  return entries
    .map(([key, value]) => (value === undefined ? '' : (line(key, value) ?? '')))
    .join('');
}

/**
 * Writes the file with mode 0600 (an existing file is truncated and its mode narrowed too); a run
 * without a connection writes an empty file, so that a later `source` or report finds one.
 */
export function writeDotenv(path: string, report: Report, format: DotenvFormat): void {
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC;
  const fd = openSync(path, flags, 0o600);
  try {
    if (fstatSync(fd).isFile()) fchmodSync(fd, 0o600);
    writeSync(fd, dotenvText(report, format) ?? '');
  } finally {
    closeSync(fd);
  }
}
