#!/usr/bin/env node
// `neon-operations-wait`: the action's engine as a command. Flags are the action's inputs; progress
// goes to stderr, the result alone to stdout, and the exit code says how it ended.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { renderJunit } from './cli/junit.js';
import { Terminal } from './cli/terminal.js';
import { resultFields, resultJson, runEngine } from './engine.js';
import { inputErrorReport, type Report } from './report/model.js';
import { NEON_API_HOST } from './neon/client.js';
import { renderSummary } from './report/summary.js';
import { type InputReader, readSettings } from './settings.js';
import { formatDuration } from './util/duration.js';
import { InputError } from './util/errors.js';
import { redact } from './util/redact.js';
import { oneLine } from './util/text.js';
import { ACTION_VERSION } from './version.js';
import { WAIT_STATUS } from './wait/status.js';

// The options are read from the help, so that none goes undocumented: `--name ARG` takes a value.
const HELP = `Usage: neon-operations-wait [options]
Waits for Neon control-plane operations to finish and reports them.

What to wait for (operation ids, else the branch, else the project until idle):
  --operation-id ID         an operation to wait for (repeat it, or a, b, c)
  --operations JSON         the API response that started the work (or its
                            "operations" array): JSON, @FILE, or - for stdin
  --project-id ID           the project (optional with a project-scoped key)
  --org-id ID               the organization, to find the project by org key
  --branch-id ID            with no operation ids: wait until the branch is idle

How:
  --timeout DURATION        give up after this long (default 10m, at most 6h)
  --interval DURATION       longest gap between checks (default 5s)
  --fail-fast               end at a 'failed' status, not wait for its retry
  --no-wait                 look once and report, whatever the status
  --api-host URL            default ${NEON_API_HOST}
  --database-url URL        then connect until SELECT 1 answers (ps shows it:
  --database-url-file PATH    prefer a file holding the URL
  --database-url-env NAME     or a variable holding it, e.g. DATABASE_URL)
  --api-key KEY             not recommended (ps shows it): set NEON_API_KEY

Output (stdout: the result alone; stderr: progress):
  --json                    print one JSON object: status, timed_out,
                            operation, operations, failures_count,
                            elapsed_seconds, project_id, database_ready
  --summary-file PATH       write the Markdown report (as the job summary)
  --summary-limit N         recent operations in it (default 20; 0: none)
  --since TIME              those since then: ISO 8601 time or duration (2h)
  --junit PATH              write JUnit XML, a test case per operation
  --help                    this help (-h)
  --version                 the version (-v)

Environment:
  NEON_API_KEY              the Neon API key (required)
  HTTPS_PROXY, NO_PROXY     a proxy for the API

Exit codes:
  0    succeeded (finished, skipped, idle, or --no-wait)
  1    an awaited operation or the database did not succeed
  2    usage or input error (no request sent)
  3    API error (key refused, project not found, unreachable till the end)
  124  the deadline passed before the operations (or the database) were ready
  130  interrupted (SIGINT, SIGTERM); the result and report files are written
`;
const OPTIONS: ParseArgsOptionsConfig = {};
for (const [, flag, arg] of HELP.matchAll(/^ {2}--([a-z-]+)( [A-Z]+)?/gm)) {
  OPTIONS[flag] = { type: arg ? 'string' : 'boolean', multiple: flag === 'operation-id' };
}
OPTIONS.help.short = 'h';
OPTIONS.version.short = 'v';

type Flags = Record<string, string | boolean | Array<string | boolean> | undefined>;

/** How the command names an input to the user: by its flag, or the variable for the key. */
const flagOf = (name: string): string =>
  name === 'api_key' ? 'NEON_API_KEY' : `--${name.replace(/_/g, '-')}`;

// Messages from beyond the settings (API client, project lookup, database URL) name the action's
// inputs: cheaper mapped here than a seam through the engine. A quoted "project_id" is the API's.
const inCliWords = (message: string): string =>
  message.replace(
    /\b[Ii]nput '(\w+)'|(?<!")\b(api_key|project_id|org_id|branch_id|operation_id)\b(?!")/g,
    (_, quoted?: string, bare?: string) => flagOf((quoted ?? bare) as string)
  );

/** The action's inputs from the flags (`--project-id` is `project_id`) and the environment. */
function inputsOf(flags: Flags, env: NodeJS.ProcessEnv): InputReader {
  const text = (flag: string): string => (flags[flag] as string | undefined) ?? '';
  /**
   * The file named by a flag, or stdin for `-`. Empty is an error: a failed `curl … |` must not
   * turn a wait for its operations into a wait for an idle project.
   */
  const file = (flag: string, path = text(flag)): string => {
    let content: string;
    try {
      content = path && readFileSync(path === '-' ? 0 : path, 'utf8');
    } catch (error) {
      throw new InputError(`--${flag} could not be read: ${(error as Error).message}`);
    }
    if (path && !content.trim())
      throw new InputError(`--${flag}: ${path === '-' ? 'stdin' : path} is empty.`);
    return content;
  };
  const urlEnv = text('database-url-env');
  if (urlEnv && !env[urlEnv]) throw new InputError(`--database-url-env: ${urlEnv} is not set.`);
  const apiKey = text('api-key') || env.NEON_API_KEY || '';
  if (!apiKey.trim()) throw new InputError('NEON_API_KEY is not set: put a Neon API key in it.');
  const ops = text('operations');
  if (flags.operations !== undefined && !ops.trim()) throw new InputError('--operations is empty.');
  const inputs: Record<string, string> = {
    api_key: apiKey,
    operations: /^[-@]/.test(ops) ? file('operations', ops.slice(1) || '-') : ops,
    wait: String(!flags['no-wait']),
    database_url: text('database-url') || file('database-url-file') || env[urlEnv] || '',
    // The recent operations are fetched only for a report that shows them.
    summary: String(Boolean(flags['summary-file']))
  };
  return (name) => {
    const value = Object.hasOwn(inputs, name) ? inputs[name] : flags[name.replace(/_/g, '-')];
    return Array.isArray(value) ? value.join(',') : String(value ?? '');
  };
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

async function main(argv: string[]): Promise<number> {
  const startedAt = Date.now();
  let flags: Flags;
  try {
    flags = parseArgs({ args: argv, options: OPTIONS, strict: true }).values;
  } catch (error) {
    process.stderr.write(`neon-operations-wait: ${(error as Error).message}\nSee --help.\n`);
    return 2;
  }
  if (flags.help) process.stdout.write(HELP);
  if (flags.version) process.stdout.write(`${ACTION_VERSION}\n`);
  if (flags.help || flags.version) return 0;

  const terminal = new Terminal(process.stderr, startedAt);
  const controller = new AbortController();
  const signal = controller.signal;
  // Every signal is caught: a second Ctrl-C must not end the process before the result is out.
  for (const name of ['SIGINT', 'SIGTERM'] as const) process.on(name, () => controller.abort());
  let report: Report;
  try {
    // The key and a password are redacted from every line we write; no terminal masks anything.
    const settings = readSettings(inputsOf(flags, process.env), () => undefined, flagOf);
    if (flags['api-key'] !== undefined)
      terminal.warning('--api-key is visible to other processes (ps); prefer NEON_API_KEY.');
    terminal.start();
    report = await runEngine(settings, { log: terminal, signal, onCheck: terminal.onCheck });
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    report = inputErrorReport(error.message, startedAt, Date.now());
  } finally {
    terminal.stop();
  }
  if (report.failure) report = { ...report, failure: inCliWords(report.failure) };

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
  process.stdout.write(
    `${redact(flags.json ? resultJson(resultFields(report)) : oneLine(verdict, 2000))}\n`
  );
  return exitCode(report);
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    // Only a bug gets here; keep the message, drop the stack.
    process.stderr.write(
      `Unexpected failure: ${redact(String((error as Error)?.message ?? error))}\n`
    );
    process.exitCode = 1;
  }
);
