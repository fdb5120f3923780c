// `neon-operations-wait`: the action's engine as a command. Flags are the action's inputs; progress
// goes to stderr, the result alone to stdout, and the exit code says how it ended.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { runEngine, runStep } from '../engine.js';
import { flagOf, type Input, INPUTS } from '../inputs.js';
import { OUTPUTS, resultFields, resultJson } from '../outputs.js';
import type { Report } from '../report/model.js';
import { renderSummary } from '../report/summary.js';
import { type InputReader, readSettings } from '../settings.js';
import { formatDuration } from '../util/duration.js';
import { InputError, type Naming } from '../util/errors.js';
import { redact } from '../util/redact.js';
import { oneLine } from '../util/text.js';
import { ACTION_VERSION } from '../version.js';
import { WAIT_STATUS } from '../wait/status.js';
import { renderJunit } from './junit.js';
import { type Stream, Terminal } from './terminal.js';

/** The command's inputs: every row but the action's own. */
export const FLAGS = INPUTS.filter((row) => row.only !== 'action');

/** `--timeout DURATION`, as the help and docs/cli.md show a flag. */
export const flagUsage = (row: Input): string => `--${flagOf(row)}${row.arg ? ` ${row.arg}` : ''}`;

/** What the help and docs/cli.md say of a flag. */
export const flagText = (row: Input): string =>
  (row.help ?? row.description).replace(/`/g, '') + (row.short ? ` (-${row.short})` : '');

/** `  --flag ARG   text`, the text wrapped at 80 columns under itself. */
const entry = (left: string, text: string): string =>
  `  ${left.padEnd(26)}${text.replace(/(.{1,52})(?: |$)/g, '$1\n').trimEnd()}`.replace(
    /\n/g,
    `\n${' '.repeat(28)}`
  );

export const HELP = [
  'Usage: neon-operations-wait [options]',
  'Waits for Neon control-plane operations to finish and reports them: operation ids, else the',
  'branch, else the project until idle.',
  '',
  'Options:',
  ...FLAGS.map((row) => entry(flagUsage(row), flagText(row))),
  entry('(--json fields)', OUTPUTS.flatMap((o) => (o.value ? [o.name] : [])).join(', ')),
  '',
  'Environment:',
  ...FLAGS.filter((row) => row.env).map((row) =>
    entry(row.env as string, `instead of --${flagOf(row)}`)
  ),
  entry('HTTPS_PROXY, NO_PROXY', 'a proxy for the API'),
  '',
  'Exit codes:',
  '  0    succeeded (finished, skipped, idle, or --no-wait)',
  '  1    an awaited operation or the database did not succeed',
  '  2    usage or input error (no request sent)',
  '  3    API error (key refused, project not found, unreachable till the end)',
  '  124  the deadline passed before the operations (or the database) were ready',
  '  130  interrupted (SIGINT, SIGTERM); the result and report files are written',
  ''
].join('\n');

const OPTIONS: ParseArgsOptionsConfig = Object.fromEntries(
  FLAGS.map((row) => [
    flagOf(row),
    {
      type: row.arg ? 'string' : 'boolean',
      multiple: Boolean(row.multiple),
      ...(row.short && { short: row.short })
    }
  ])
);

type Flags = Record<string, string | boolean | Array<string | boolean> | undefined>;

/** How the command names an input: by its flag, or by its variable for a secret (the key). */
export const cliNaming: Naming = (name) => {
  const row = INPUTS.find((r) => r.name === name);
  if (!row) return name;
  return row.secret && row.env ? row.env : `--${flagOf(row)}`;
};

/** The action's inputs from the flags (`--project-id` is `project_id`) and the environment. */
function inputsOf(flags: Flags, { env, stdin }: Io): InputReader {
  const text = (flag: string): string => (flags[flag] as string | undefined) ?? '';
  const wrong = (name: string, words: (flag: string) => string) =>
    new InputError(name, (named) => words(named(name)));
  /**
   * The file named by a flag, or stdin for `-`. Empty is an error: a failed `curl … |` must not
   * turn a wait for its operations into a wait for an idle project.
   */
  const file = (name: string, path: string): string => {
    let content: string;
    try {
      content = path && (path === '-' ? stdin() : readFileSync(path, 'utf8'));
    } catch (error) {
      throw wrong(name, (flag) => `${flag} could not be read: ${(error as Error).message}`);
    }
    if (path && !content.trim())
      throw wrong(name, (flag) => `${flag}: ${path === '-' ? 'stdin' : path} is empty.`);
    return content;
  };
  const urlEnv = text('database-url-env');
  if (urlEnv && !env[urlEnv])
    throw wrong('database_url_env', (flag) => `${flag}: ${urlEnv} is not set.`);
  const values: Record<string, string> = {};
  for (const row of FLAGS) {
    const value = flags[flagOf(row)] || (row.env && env[row.env]);
    values[row.name] = Array.isArray(value) ? value.join(',') : String(value ?? '');
  }
  if (!values.api_key?.trim())
    throw wrong('api_key', (name) => `${name} is not set: put a Neon API key in it.`);
  const ops = values.operations as string;
  if (flags.operations !== undefined && !ops.trim())
    throw wrong('operations', (flag) => `${flag} is empty.`);
  Object.assign(values, {
    operations: /^[-@]/.test(ops) ? file('operations', ops.slice(1) || '-') : ops,
    wait: String(!flags['no-wait']),
    database_url:
      text('database-url') ||
      file('database_url_file', text('database-url-file')) ||
      env[urlEnv] ||
      '',
    // The recent operations are fetched only for a report that shows them.
    summary: String(Boolean(flags['summary-file']))
  });
  return (name) => values[name] ?? '';
}

/** The exit code a script branches on (see HELP). */
function exitCode(report: Report): number {
  if (report.status === WAIT_STATUS.inputError) return 2;
  if (report.status === WAIT_STATUS.apiError) return 3;
  if (report.status === WAIT_STATUS.aborted) return 130;
  // A fault still happening at the deadline: the API was unreachable (or failing), not slow.
  if (report.timedOut) return report.lastError ? 3 : 124;
  return report.failure ? 1 : 0;
}

/** Where the command reads and writes: the process's own, or a test's. */
export interface Io {
  stdout: Pick<Stream, 'write'>;
  stderr: Stream;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  /** All of stdin (`--operations -`). */
  stdin: () => string;
}

/** The command: arguments in, the exit code out. Nothing happens on import. */
export async function main(argv: string[], io: Io): Promise<number> {
  const startedAt = Date.now();
  let flags: Flags;
  try {
    flags = parseArgs({ args: argv, options: OPTIONS, strict: true }).values;
  } catch (error) {
    io.stderr.write(`neon-operations-wait: ${(error as Error).message}\nSee --help.\n`);
    return 2;
  }
  if (flags.help) io.stdout.write(HELP);
  if (flags.version) io.stdout.write(`${ACTION_VERSION}\n`);
  if (flags.help || flags.version) return 0;

  const terminal = new Terminal(io.stderr, startedAt);
  const deps = { log: terminal, signal: io.signal, onCheck: terminal.onCheck, named: cliNaming };
  // The key and a password are redacted from every line we write; no terminal masks anything.
  const read = () => readSettings(inputsOf(flags, io), () => undefined);
  const { report } = await runStep(read, cliNaming, async (settings) => {
    if (flags['api-key'] !== undefined)
      terminal.warning('--api-key is visible to other processes (ps); prefer NEON_API_KEY.');
    terminal.start();
    try {
      return await runEngine(settings, deps);
    } finally {
      terminal.stop();
    }
  });

  for (const [path, render] of [
    [flags['summary-file'], renderSummary],
    [flags.junit, renderJunit]
  ] as const) {
    if (typeof path !== 'string') continue;
    try {
      writeFileSync(path, redact(render(report)));
    } catch (error) {
      terminal.warning(`Could not write ${path}: ${(error as Error).message}`);
    }
  }
  if (report.failure) terminal.info(`error: ${report.failure}`);
  const elapsed = formatDuration(report.finishedAt - report.startedAt);
  const verdict = `${report.status} after ${elapsed}${report.failure ? `: ${report.failure}` : ''}`;
  io.stdout.write(
    `${redact(flags.json ? resultJson(resultFields(report)) : oneLine(verdict, 2000))}\n`
  );
  return exitCode(report);
}
