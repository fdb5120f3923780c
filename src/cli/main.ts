// `neon-operations-wait`: the action's engine as a command. Flags are the action's inputs; progress
// goes to stderr, the result alone to stdout, and the exit code says how it ended.
import type { Readable } from 'node:stream';
import { type EngineSettings, runEngine, runStep } from '../engine.js';
import { DOTENV_FORMATS, flagOf, FORMAT_CHOICES, input, type InputName } from '../inputs.js';
import type { Report } from '../report/model.js';
import { renderSummary } from '../report/summary.js';
import { readSettings } from '../settings.js';
import type { InputReader } from '../settings/fields.js';
import { readChoices } from '../settings/fields.js';
import { parseDuration } from '../util/duration.js';
import { InputError } from '../util/errors.js';
import { ACTION_VERSION } from '../version.js';
import { cliNaming, FLAGS, type Flags, readArgs } from './args.js';
import { prepareReportFile, readInput, writeReport } from './files.js';
import { HELP } from './help.js';
import { type Ending, exitCode, type Format, FORMATS, leftBehind } from './result.js';
import { renderJunit } from './junit.js';
import { type DotenvFormat, writeDotenv } from './dotenv.js';
import { pullRequestOfEnv } from './event.js';
import { type ProgressStyle, progressStyle, type Stream, Terminal } from './terminal.js';

/** The engine's settings and the command's own (how stderr shows the wait). */
interface CommandSettings extends EngineSettings {
  progress: ProgressStyle;
}

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
    throw wrong(
      'api_key',
      (name) =>
        `${name} is not set: put a Neon API key in it (made in the Neon console: Account settings, or Organization settings, then API keys).`
    );
  // The connection `--dotenv` writes is the one `--create-branch` gives: without it, the file
  // would be empty and a later `source` would run with no DATABASE_URL, unnoticed.
  if (values.dotenv && !values.create_branch)
    throw wrong(
      'dotenv',
      (flag) =>
        `${flag} writes the connection of the branch ${cliNaming('create_branch')} makes or reuses; without ${cliNaming('create_branch')} there is none to write.`
    );
  for (const name of [...REPORTS.map((r) => r.name), 'dotenv'] as const) {
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

/** `--json` is short for `--format json`; a wrong `--format` is an input error (read with the settings). */
const formatOf = (flags: Flags): Format =>
  flags.json ? 'json' : (FORMAT_CHOICES.find((f) => f === flags.format) ?? 'text');

/** `--dotenv-format`, else its row's default (a wrong one is an input error, read with the settings). */
const dotenvFormatOf = (flags: Flags): DotenvFormat => {
  const asked = flags['dotenv-format'] ?? input('dotenv_format').default;
  return DOTENV_FORMATS.find((f) => f === asked) ?? 'shell';
};

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

/** The command: arguments in, the exit code out. Nothing happens on import. */
export async function main(argv: string[], io: Io): Promise<number> {
  const startedAt = Date.now();
  const { flags, usage } = readArgs(argv);
  if (flags.help) await print(io.stdout, HELP);
  if (flags.version) await print(io.stdout, `${ACTION_VERSION}\n`);
  if (flags.help || flags.version) return 0;

  const terminal = new Terminal(io.stderr, startedAt);
  const { onCheck, onRequest } = terminal;
  // A sweep reads pull requests where the environment says GitHub's API is (GHES), as Actions does.
  const github = io.env.GITHUB_API_URL ? { baseUrl: io.env.GITHUB_API_URL } : undefined;
  const deps = { log: terminal, signal: io.signal, onCheck, onRequest, named: cliNaming, github };
  // The command's own settings ride with the engine's: a new option adds a field, not a variable.
  const read = async (): Promise<CommandSettings> => {
    if (usage) throw new InputError('', () => usage);
    const input = await inputsOf(flags, io);
    // The key and a password are redacted from every line we write; no terminal masks anything.
    const pullRequest = pullRequestOfEnv(io.env);
    const settings = readSettings(input, () => undefined, pullRequest && { pullRequest });
    readChoices({ name: 'format', value: input('format') });
    readChoices({ name: 'dotenv_format', value: input('dotenv_format') });
    const progress = progressStyle(
      flags.quiet ? 'none' : input('progress'),
      io.env,
      io.stderr.isTTY
    );
    return { ...settings, progress };
  };
  const { report } = await runStep(read, cliNaming, async (settings) => {
    terminal.start(settings.progress, startedAt + settings.timeoutMs);
    if (flags['api-key'] !== undefined)
      terminal.warning('--api-key is visible to other processes (ps); prefer NEON_API_KEY.');
    try {
      return await runEngine(settings, deps);
    } finally {
      terminal.stop();
    }
  });

  const format = FORMATS[formatOf(flags)];
  const ending = await writeReports(report, flags, terminal, io);
  // Said once: by the verdict line when it is text, else on stderr.
  if (report.failure && !format.saysFailure) terminal.error(report.failure);
  const left = leftBehind(report);
  if (left) terminal.warning(left);
  if (await print(io.stdout, format.render(ending))) return ending.code;
  terminal.error('could not write the result to stdout.');
  return 2;
}

/**
 * The report files, until a signal stops them; the ending says why the exit code is not the
 * verdict's (`finished after 12ms` alone would hide a report not written or a signal).
 */
async function writeReports(
  report: Report,
  flags: Flags,
  terminal: Terminal,
  io: Io
): Promise<Ending> {
  const writing = io.writing();
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
      writeDotenv(flags.dotenv, report, dotenvFormatOf(flags));
    } catch (error) {
      unwritten.push(flags.dotenv);
      terminal.error(`could not write ${flags.dotenv}: ${(error as Error).message}`);
    }
  }
  const code = exitCode(report);
  // A signal after the wait (the summary's requests, a FIFO without a reader) still interrupts.
  if ((writing.aborted || io.signal.aborted) && code !== 130)
    return { report, code: 130, reasons: ['interrupted (SIGINT or SIGTERM) after the wait'] };
  if (unwritten.length > 0 && code === 0)
    return { report, code: 2, reasons: [`${unwritten.join(' and ')} not written`] };
  return { report, code, reasons: [] };
}
