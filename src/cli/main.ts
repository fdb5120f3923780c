// `neon-operations-wait`: the action's engine as a command. Flags are the action's inputs; progress
// goes to stderr, the result alone to stdout, and the exit code says how it ended.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { runEngine, runStep } from '../engine.js';
import { flagOf, type Input, INPUTS } from '../inputs.js';
import { OUTPUTS } from '../outputs.js';
import { renderSummary } from '../report/summary.js';
import { type InputReader, readSettings } from '../settings.js';
import { InputError, type Naming } from '../util/errors.js';
import { redact } from '../util/redact.js';
import { ACTION_VERSION } from '../version.js';
import { exitCode, resultText } from './exit.js';
import { renderJunit } from './junit.js';
import { type ProgressStyle, progressStyle, type Stream, Terminal } from './terminal.js';

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
  entry(
    '(--json fields)',
    [
      ...OUTPUTS.flatMap((o) => (o.value ? [o.name] : [])),
      'exit_code, message, last_api_error'
    ].join(', ')
  ),
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
  '  2    usage or input error: no request sent, but for one GET /projects when',
  '       --project-id is not given and the key sees no project or several',
  '  3    API error: key refused, project not found, or at the deadline the API',
  '       failing since the first half of the wait',
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
/**
 * parseArgs' message, but a stray argument is named by its position, never quoted: a secret lands
 * there when a value follows a flag that takes none (`--json "$NEON_API_KEY"`).
 */
export function usageError(error: unknown, args: string[], options = OPTIONS): string {
  const { code, message } = error as { code?: string; message: string };
  if (code !== 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return `${message} (see --help).`;
  const { tokens } = parseArgs({ args, options, strict: false, tokens: true });
  const at = tokens.findIndex((token) => token.kind === 'positional');
  const [flag, stray] = [tokens[at - 1], tokens[at] as { index: number }];
  const hint = flag?.kind === 'option' && !flag.value ? `, and ${flag.rawName} takes no value` : '';
  return (
    `Argument ${stray.index + 1} is not an option (its value is not shown)${hint}: ` +
    'this command takes options only (see --help).'
  );
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
  const read = () => {
    if (usage) throw new InputError('', () => usage as string);
    const input = inputsOf(flags, io);
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
  if (report.failure) terminal.error(report.failure);
  io.stdout.write(resultText(report, Boolean(flags.json)));
  return exitCode(report);
}
