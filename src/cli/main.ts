// `neon-operations-wait`: the action's engine as a command. Flags are the action's inputs; progress
// goes to stderr, the result alone to stdout, and the exit code says how it ended.
import type { Readable } from 'node:stream';
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { runEngine, runStep } from '../engine.js';
import { flagOf, input, type Input, type InputName, INPUTS } from '../inputs.js';
import { COMMAND_FIELDS, OUTPUTS, resultFields, resultJson } from '../outputs.js';
import type { Report } from '../report/model.js';
import { renderSummary } from '../report/summary.js';
import { type InputReader, readSettings } from '../settings.js';
import { formatDuration, parseDuration } from '../util/duration.js';
import { InputError, type Naming } from '../util/errors.js';
import { redact } from '../util/redact.js';
import { oneLine } from '../util/text.js';
import { ACTION_VERSION } from '../version.js';
import { WAIT_STATUS } from '../wait/status.js';
import { prepareReportFile, readInput, writeReport } from './files.js';
import { renderJunit } from './junit.js';
import { writeDotenv } from './dotenv.js';
import { type ProgressStyle, progressStyle, type Stream, Terminal } from './terminal.js';

export const FLAGS = INPUTS.filter((row) => row.only !== 'action');

export const flagUsage = (row: Input): string => `--${flagOf(row)}${row.arg ? ` ${row.arg}` : ''}`;

export const flagText = (row: Input): string =>
  (row.help ?? row.description).replace(/`/g, '') + (row.short ? ` (-${row.short})` : '');

/** `  --flag ARG   text`, the text wrapped at 80 columns under itself. */
const entry = (left: string, text: string): string =>
  `  ${left.padEnd(26)}${text.replace(/(.{1,52})(?: |$)/g, `$1\n${' '.repeat(28)}`).trimEnd()}`;

export const HELP = [
  'Usage: neon-operations-wait [options]',
  'Waits for Neon control-plane operations to finish and reports them: operation ids, else the',
  'branch, else the project until idle.',
  '',
  'Options:',
  ...FLAGS.map((row) => entry(flagUsage(row), flagText(row))),
  entry(
    '(--json fields)',
    [...OUTPUTS.filter((o) => o.value), ...COMMAND_FIELDS].map((field) => field.name).join(', ')
  ),
  '',
  'Environment:',
  ...FLAGS.flatMap((row) => (row.env ? [entry(row.env, `instead of --${flagOf(row)}`)] : [])),
  entry('HTTPS_PROXY, NO_PROXY', 'a proxy for the API'),
  '',
  'Exit codes:',
  '  0    succeeded (finished, skipped, idle, or --no-wait)',
  '  1    an awaited operation or the database did not succeed',
  '  2    usage or input error: no request sent, but for one GET /projects when',
  '       --project-id is not given and the key sees no project or several; or a',
  '       report file not written',
  '  3    API error: key refused, project not found, or at the deadline the API',
  '       failing since the first half of the wait',
  '  4    --request got no answer: it may have been applied; it was not sent again',
  '  124  the deadline passed before the operations (or the database) were ready',
  '  130  interrupted (SIGINT, SIGTERM); the result and report files are written',
  ''
].join('\n');

const option = ({ arg, multiple = false, short }: Input) =>
  ({ type: arg ? 'string' : 'boolean', multiple, ...(short && { short }) }) as const;
const OPTIONS: ParseArgsOptionsConfig = Object.fromEntries(
  FLAGS.map((r) => [flagOf(r), option(r)])
);

/** A report file the command writes, by the input that names it. */
interface ReportFile {
  name: InputName;
  render: (report: Report) => string;
  /** The project's recent operations are fetched only for a report that shows them. */
  showsRecent: boolean;
  /** Appended to, as a job summary file is (`>>`), or replaced. */
  append: boolean;
}

const REPORTS: readonly ReportFile[] = [
  { name: 'summary_file', render: renderSummary, showsRecent: true, append: true },
  { name: 'junit', render: renderJunit, showsRecent: false, append: false }
];

type Flags = Record<string, string | boolean | Array<string | boolean> | undefined>;

/** How the command names an input: by its flag, or by its variable for a secret (the key). */
export const cliNaming: Naming = (name) => {
  const row = INPUTS.find((r) => r.name === name);
  return !row ? name : row.secret && row.env ? row.env : `--${flagOf(row)}`;
};

async function inputsOf(flags: Flags, { env, stdin, signal }: Io): Promise<InputReader> {
  const wrong = (name: string, words: (flag: string) => string) =>
    new InputError(name, (named) => words(named(name)));
  const values: Record<string, string> = {};
  for (const row of FLAGS) {
    const given = flags[flagOf(row)];
    // Given empty (a failed `$(…)`), a flag must not widen the wait: `--operation-id ""` would
    // wait for an idle project, `--database-url ""` skip the check. Before the variable's turn.
    if ([given].flat().some((v) => typeof v === 'string' && !v.replace(/[\s,]+/g, '')))
      throw wrong(row.name, (flag) => `${flag} is empty.`);
    const value = given || (row.env && env[row.env]);
    values[row.name] = Array.isArray(value) ? value.join(',') : String(value ?? '');
  }
  const urlEnv = values.database_url_env as string;
  if (urlEnv && !env[urlEnv])
    throw wrong('database_url_env', (flag) => `${flag}: ${urlEnv} is unset or empty.`);
  if (!values.api_key?.trim())
    throw wrong('api_key', (name) => `${name} is not set: put a Neon API key in it.`);
  for (const { name } of REPORTS) {
    const path = values[name];
    if (path) prepareReportFile(path, name);
  }
  // Reading ends at the deadline or a signal (a stdin or a FIFO may never end): the default when
  // --timeout is wrong (the settings say so next), the longest when it is too long.
  const { default: longest, max } = input('timeout');
  const timeoutMs = Math.min(parseDuration(values.timeout!) ?? parseDuration(longest!)!, max!);
  const file = async (name: string, path = values[name]!) =>
    path && readInput(name, path, { signal, timeoutMs, stdin });
  Object.assign(values, {
    operations: await jsonArgument('operations', values.operations ?? '', file),
    body: await jsonArgument('body', values.body ?? '', file),
    wait: String(!flags['no-wait']),
    database_url: values.database_url || (await file('database_url_file')) || env[urlEnv] || '',
    summary: String(REPORTS.some(({ name, showsRecent }) => showsRecent && values[name]))
  });
  return (name) => values[name] ?? '';
}

/**
 * `--operations` and `--body`: JSON as text, or read from `@PATH`, and from stdin for `-` or `@-`
 * only. An empty name (`"@$UNSET"`) is an input error before anything is read, never stdin.
 */
async function jsonArgument(
  name: InputName,
  value: string,
  file: (name: string, path: string) => Promise<string>
) {
  if (value === '-') return file(name, '-');
  if (!value.startsWith('@')) return value;
  const path = value.slice(1);
  if (!path)
    throw new InputError(name, (named) => {
      const flag = named(name);
      return `${flag} @ names no file: give ${flag} @PATH, or - for stdin.`;
    });
  return file(name, path);
}

const CODES: Record<string, number> = {
  [WAIT_STATUS.inputError]: 2,
  [WAIT_STATUS.apiError]: 3,
  [WAIT_STATUS.unconfirmed]: 4,
  [WAIT_STATUS.aborted]: 130
};

/** The exit code a script branches on (the help and docs/cli.md list them). */
export function exitCode(r: Report): number {
  const listed = CODES[r.status];
  if (listed !== undefined) return listed;
  if (r.timedOut) {
    // 3 when the failing request went unanswered since the wait's first half: the API was down.
    const apiDown = r.failingSince !== undefined && r.failingSince - r.startedAt <= r.timeoutMs / 2;
    if (apiDown) return 3;
    return 124;
  }
  if (r.failure) return 1;
  return 0;
}

/** What stdout holds, whatever the ending: the verdict line, or with `--json` one object. */
export function resultText(
  report: Report,
  json: boolean,
  code = exitCode(report),
  reasons: readonly string[] = []
): string {
  const elapsed = formatDuration(report.finishedAt - report.startedAt);
  let message = `${report.status} after ${elapsed}${report.failure ? `: ${report.failure}` : ''}`;
  if (reasons.length > 0) message += `; exit ${code}: ${reasons.join(', ')}`;
  if (!json) return `${redact(oneLine(message, 2000))}\n`;
  const more = { exit_code: code, message, last_api_error: report.lastError ?? null };
  // resultJson redacts each value: redacting the document would rewrite its keys.
  return `${resultJson({ ...resultFields(report), ...more })}\n`;
}

/**
 * Writes the result; false when it could not be written (a full disk). A reader that went away
 * (`| head -n 1`) only loses the rest: that is no failure of the run.
 */
function print(stdout: Io['stdout'], text: string): Promise<boolean> {
  return new Promise((resolve) => {
    stdout.write(text, (error) => {
      const code = error?.code;
      resolve(!error || code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED');
    });
  });
}

export interface Io {
  /** `done` is told how the write ended (a full disk, a reader gone). */
  stdout: {
    write: (text: string, done: (error?: NodeJS.ErrnoException | null) => void) => unknown;
  };
  stderr: Stream;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal; // the first SIGINT or SIGTERM
  /** Called as the report files are written: a signal then stops that (a FIFO may have no reader). */
  writing: () => AbortSignal;
  stdin: Readable; // `--operations -`
}

/** parseArgs' message, but a stray argument is named by position: it may be a secret (`--json $KEY`). */
export function usageError(error: unknown, args: string[], options = OPTIONS): string {
  const { code, message } = error as { code?: string; message: string };
  if (code !== 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return `${message} (see --help).`;
  const { tokens } = parseArgs({ args, options, strict: false, tokens: true });
  const at = tokens.findIndex((token) => token.kind === 'positional');
  const flag = tokens[at - 1];
  const hint = flag?.kind === 'option' && !flag.value ? `, and ${flag.rawName} takes no value` : '';
  return `Argument ${tokens[at]!.index + 1} is not an option (its value is not shown)${hint}: this command takes options only (see --help).`;
}

/** The command: arguments in, the exit code out. Nothing happens on import. */
export async function main(argv: string[], io: Io): Promise<number> {
  const startedAt = Date.now();
  let flags: Flags;
  let usage: string | undefined;
  try {
    flags = parseArgs({ args: argv, options: OPTIONS, strict: true }).values;
  } catch (error) {
    // Ends as an input error does: with --json, its object on stdout.
    usage = usageError(error, argv);
    flags = { json: argv.includes('--json') };
  }
  if (flags.help) await print(io.stdout, HELP);
  if (flags.version) await print(io.stdout, `${ACTION_VERSION}\n`);
  if (flags.help || flags.version) return 0;

  const terminal = new Terminal(io.stderr, startedAt);
  const deps = { log: terminal, signal: io.signal, onCheck: terminal.onCheck, named: cliNaming };
  let style: ProgressStyle = 'plain';
  const read = async () => {
    if (usage) throw new InputError('', () => usage as string);
    const input = await inputsOf(flags, io);
    // The key and a password are redacted from every line we write; no terminal masks anything.
    const settings = readSettings(input, () => undefined);
    style = progressStyle(flags.quiet ? 'none' : input('progress'), io.env, io.stderr.isTTY);
    return settings;
  };
  const { report } = await runStep(read, cliNaming, async (settings) => {
    terminal.start(style, startedAt + settings.timeoutMs);
    if (flags['api-key'] !== undefined)
      terminal.warning('--api-key is visible to other processes (ps); prefer NEON_API_KEY.');
    try {
      return await runEngine(settings, deps);
    } finally {
      terminal.stop();
    }
  });

  const writing = io.writing();
  // Why the exit code is not the verdict's: the result names it (`finished after 12ms` alone would
  // hide a report not written or a signal).
  const reasons: string[] = [];
  const unwritten: string[] = []; // as tee and cp do, a file not written makes the run fail
  for (const { name, render, append } of REPORTS) {
    const path = flags[flagOf(input(name))];
    if (typeof path !== 'string') continue;
    const onWait = () => terminal.info(`Waiting for a reader of ${path} (a FIFO)…`);
    // Each renderer redacts the values it puts into its markup, never the document itself.
    await writeReport(path, render(report), { stop: writing, note: onWait, append }).catch(
      (error: Error) => {
        unwritten.push(path);
        terminal.error(`could not write ${path}: ${error.message}`);
      }
    );
  }
  if (typeof flags.dotenv === 'string') {
    try {
      writeDotenv(flags.dotenv, report);
    } catch (error) {
      unwritten.push(flags.dotenv);
      terminal.error(`could not write ${flags.dotenv}: ${(error as Error).message}`);
    }
  }
  if (report.failure) terminal.error(report.failure);
  let code = exitCode(report);
  // A signal after the wait (the summary's requests, a FIFO without a reader) still interrupts.
  const interrupted = writing.aborted || io.signal.aborted;
  if (interrupted && code !== 130) {
    code = 130;
    reasons.push('interrupted (SIGINT or SIGTERM) after the wait');
  } else if (unwritten.length > 0 && code === 0) {
    code = 2;
    reasons.push(`${unwritten.join(' and ')} not written`);
  }
  const printed = await print(io.stdout, resultText(report, Boolean(flags.json), code, reasons));
  if (printed) return code;
  terminal.error('could not write the result to stdout.');
  return 2;
}
