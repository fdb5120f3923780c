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
  '  124  the deadline passed before the operations (or the database) were ready',
  '  130  interrupted (SIGINT, SIGTERM); the result and report files are written',
  ''
].join('\n');

const option = ({ arg, multiple = false, short }: Input) =>
  ({ type: arg ? 'string' : 'boolean', multiple, ...(short && { short }) }) as const;
const OPTIONS: ParseArgsOptionsConfig = Object.fromEntries(
  FLAGS.map((r) => [flagOf(r), option(r)])
);

/** A report the command writes; the project's recent operations are fetched only for one that shows them. */
interface Rendering {
  render: (report: Report) => string;
  showsRecent: boolean;
}
const MARKDOWN: Rendering = { render: renderSummary, showsRecent: true };
const JUNIT: Rendering = { render: renderJunit, showsRecent: false };

/** The report files, by the input that names each. */
const REPORTS: ReadonlyArray<[InputName, Rendering]> = [
  ['summary_file', MARKDOWN],
  ['junit', JUNIT]
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
  for (const [name] of REPORTS) if (values[name]) prepareReportFile(values[name], name);
  // Reading ends at the deadline or a signal (a stdin or a FIFO may never end): the default when
  // --timeout is wrong (the settings say so next), the longest when it is too long.
  const { default: longest, max } = input('timeout');
  const timeoutMs = Math.min(parseDuration(values.timeout!) ?? parseDuration(longest!)!, max!);
  const file = async (name: string, path = values[name]!) =>
    path && readInput(name, path, { signal, timeoutMs, stdin });
  const ops = values.operations as string;
  Object.assign(values, {
    operations: /^[-@]/.test(ops) ? await file('operations', ops.slice(1) || '-') : ops,
    wait: String(!flags['no-wait']),
    database_url: values.database_url || (await file('database_url_file')) || env[urlEnv] || '',
    summary: String(REPORTS.some(([name, { showsRecent }]) => showsRecent && values[name]))
  });
  return (name) => values[name] ?? '';
}

const CODES: Record<string, number> = {
  [WAIT_STATUS.inputError]: 2,
  [WAIT_STATUS.apiError]: 3,
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

/** The run's exit code: the wait's, unless the writing was interrupted (130) or a success left a file unwritten (2). */
function runExitCode(report: Report, writingAborted: boolean, unwritten: number): number {
  if (writingAborted) return 130;
  const waited = exitCode(report);
  if (waited !== 0) return waited;
  // As tee and cp do, a file not written makes the run fail.
  if (unwritten > 0) return 2;
  return 0;
}

/** What stdout holds, whatever the ending: the verdict line, or with `--json` one object. */
export function resultText(report: Report, json: boolean, code = exitCode(report)): string {
  const elapsed = formatDuration(report.finishedAt - report.startedAt);
  const message = `${report.status} after ${elapsed}${report.failure ? `: ${report.failure}` : ''}`;
  const more = { exit_code: code, message, last_api_error: report.lastError ?? null };
  const text = json ? resultJson({ ...resultFields(report), ...more }) : oneLine(message, 2000);
  return `${redact(text)}\n`;
}

export interface Io {
  stdout: Pick<Stream, 'write'>;
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
  if (flags.help) io.stdout.write(HELP);
  if (flags.version) io.stdout.write(`${ACTION_VERSION}\n`);
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
  let unwritten = 0;
  for (const [name, { render }] of REPORTS) {
    const path = flags[flagOf(input(name))];
    if (typeof path !== 'string') continue;
    const onWait = () => terminal.info(`Waiting for a reader of ${path} (a FIFO)…`);
    await writeReport(path, redact(render(report)), writing, onWait).catch((error: Error) => {
      unwritten++;
      terminal.error(`could not write ${path}: ${error.message}`);
    });
  }
  if (report.failure) terminal.error(report.failure);
  const code = runExitCode(report, writing.aborted, unwritten);
  io.stdout.write(resultText(report, Boolean(flags.json), code));
  return code;
}
