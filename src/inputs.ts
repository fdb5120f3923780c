import { NEON_API_HOST } from './neon/http.js';
import { DEFAULT_POLICY, FAIL_ON_CHOICES } from './wait/status.js';

/**
 * Every input, once: action.yml is checked against these rows; the command's flags and help and
 * the docs' tables are made from them (`npm run docs`). `name`: action.yml's, and the flag's
 * (`--name-with-hyphens`) unless `flag` says otherwise (`--no-wait` sets `wait` to false).
 * `default`: as action.yml writes it (none: required). `min`, `max`: bounds in ms for a duration.
 * `description`: one line stating the default and bounds; `help`: the command's words where those
 * do not fit. `only`: the one front end that has it. `arg`: the flag's argument (none: a switch).
 * `env`: read when the flag is absent. `secret`: the command names it by its variable (its flag is
 * discouraged). `multiple`: the flag may be repeated. `choices`: what a `choice` or `list` input
 * takes (`readChoices()` in settings.ts reads both).
 */
interface InputRow {
  /** `choice`: one of `choices`; `list`: any of them, separated by commas. */
  type: 'duration' | 'count' | 'bool' | 'text' | 'choice' | 'list';
  default?: string;
  min?: number;
  max?: number;
  choices?: readonly string[];
  description: string;
  only?: 'action' | 'command';
  arg?: string;
  env?: string;
  help?: string;
  flag?: string;
  short?: string;
  /** The command's help lists its flags under these headings (`src/cli/help.ts` titles them). */
  group?: FlagGroup;
  multiple?: boolean;
  secret?: boolean;
}

/** What a flag is about, for the help: each command row has one. */
export type FlagGroup = 'target' | 'request' | 'deadline' | 'output' | 'database' | 'api' | 'about';

const H = 3_600_000;

// A table, one input a line, in the order of the docs and the help.
/** `--progress`: how stderr shows the wait (`auto` picks one of the others). */
export const PROGRESS_CHOICES = ['auto', 'live', 'plain', 'none'] as const;
/** `--format`: what stdout holds (`src/cli/result.ts` has a renderer for each). */
export const FORMAT_CHOICES = ['text', 'json'] as const;
/** `--dotenv-format`: who reads the `--dotenv` file (`src/cli/dotenv.ts` writes each). */
export const DOTENV_FORMATS = ['shell', 'gitlab'] as const;
/** `on_existing`: with create_branch, what an existing branch of that name gets (`requests/create-branch.ts` reads it). */
export const ON_EXISTING_CHOICES = ['reuse', 'reset'] as const;

// prettier-ignore
const INPUT_ROWS = {
  api_key: { type: 'text', description: 'Required. Neon API key, from a secret. Masked at once; never printed.', arg: 'KEY', env: 'NEON_API_KEY', secret: true, help: 'not recommended (ps shows it): set NEON_API_KEY', group: 'api' },
  project_id: { type: 'text', default: '', description: 'Project id. Default: taken from `operations`, else the only project the key can see.', arg: 'ID', env: 'NEON_PROJECT_ID', group: 'target' },
  org_id: { type: 'text', default: '', description: 'Organization id, to find the project with a personal key. Default none.', arg: 'ID', group: 'target' },
  branch_id: { type: 'text', default: '', description: "Branch id: without operation ids, wait until it is idle; also scopes the summary. Default: the whole project.", arg: 'ID', group: 'target' },
  endpoint_id: { type: 'text', default: '', description: 'Compute (endpoint) id: without operation ids, wait until this compute is idle. Default none.', arg: 'ID', group: 'target' },
  operation_id: { type: 'text', default: '', description: 'Operation ids (UUIDs), separated by commas, spaces or newlines. Default none.', arg: 'ID', multiple: true, help: 'an operation to wait for (repeat it, or a, b, c)', group: 'target' },
  operations: { type: 'text', default: '', description: 'JSON: the body of a response that started work (with an `operations` array), or that array. Default none.', arg: 'JSON', help: 'the API response that started the work (or its "operations" array): JSON, @FILE, or - for stdin', group: 'target' },
  request: { type: 'text', default: '', description: 'A request to send, then wait for: a method and a path, e.g. `POST /projects/{project_id}/branches`. Default none.', arg: 'REQUEST', group: 'request' },
  body: { type: 'text', default: '', description: 'JSON body of `request` (not with GET). Default none.', arg: 'JSON', help: 'the JSON body of --request: JSON, @FILE, or - for stdin', group: 'request' },
  create_branch: { type: 'text', default: '', description: 'Get or create a branch of this exact name, then wait until it is ready; a rerun reuses it. Default none.', arg: 'NAME', group: 'request' },
  delete_branch: { type: 'text', default: '', description: 'Delete the branch of this exact name or id, then wait; one already gone passes. Default none.', arg: 'NAME_OR_ID', group: 'request' },
  sweep_branches: { type: 'text', default: '', description: "Delete the stale branches matching this pattern (`preview/*`, `preview/pr-{pr}`): docs/sweep.md. Default none.", arg: 'PATTERN', group: 'request' },
  older_than: { type: 'duration', default: '', description: 'With sweep_branches: stale when created (or reset) longer ago, 1m to 8760h, e.g. 7d. Default none.', arg: 'DURATION', min: 60_000, max: 365 * 24 * H, group: 'request' },
  sweep_max: { type: 'count', default: '20', description: 'With sweep_branches: at most this many deletions a run, 1 to 1000. Default `20`.', arg: 'N', min: 1, max: 1000, group: 'request' },
  dry_run: { type: 'bool', default: 'false', description: 'With sweep_branches: `true` deletes nothing, and reports what it would. Default `false`.', group: 'request' },
  repository: { type: 'text', default: '', description: "with --sweep-branches: the repository whose pull requests are read, as owner/name (the action's is the workflow's own)", only: 'command', arg: 'OWNER/NAME', env: 'GITHUB_REPOSITORY', group: 'request' },
  parent: { type: 'text', default: '', description: "With create_branch: the parent's name or id. Default: the default branch.", arg: 'NAME_OR_ID', group: 'request' },
  expires_in: { type: 'duration', default: '', description: 'With create_branch: delete it this long after, 10m to 8760h, e.g. 7d. Default: never.', arg: 'DURATION', min: 600_000, max: 365 * 24 * H, group: 'request' },
  role_name: { type: 'text', default: '', description: 'With create_branch: the role of the URLs. Default: the database owner.', arg: 'NAME', group: 'request' },
  database_name: { type: 'text', default: '', description: "With create_branch: the database of the URLs (and of compare_schema). Default: the branch's first.", arg: 'NAME', group: 'request' },
  on_existing: { type: 'choice', choices: ON_EXISTING_CHOICES, default: '', description: "With create_branch: `reuse` an existing branch, or `reset` it from its parent. Default: reuse.", arg: 'WHAT', group: 'request' },
  reset_branch: { type: 'text', default: '', description: "Reset this branch (name or id) from its parent's head, then wait. Default none.", arg: 'NAME_OR_ID', group: 'request' },
  wait: { type: 'bool', default: 'true', description: '`false` reports the current state and succeeds, without waiting. Default `true`.', flag: 'no-wait', help: 'look once and report, whatever the status', group: 'target' },
  timeout: { type: 'duration', default: '10m', description: 'Deadline of the wait, 1s to 6h: 90, 90s, 15m, 1h or 1m30s. Default `10m`.', arg: 'DURATION', min: 1000, max: 6 * H, group: 'deadline', short: 't' }, // a hosted job's longest run
  interval: { type: 'duration', default: '5s', description: "Longest gap between checks, 1s to 1h (sooner where the project's history expects the end). Default `5s`.", arg: 'DURATION', min: 1000, max: H, group: 'deadline', short: 'i' },
  fail_fast: { type: 'bool', default: 'false', description: '`true` ends the wait at the first `failed` status, which Neon may still retry. Default `false`.', help: 'end at a failed status, not wait for its retry', group: 'deadline' },
  fail_on: { type: 'list', choices: FAIL_ON_CHOICES, default: DEFAULT_POLICY.failOn.join(','), description: `Final statuses that fail the step, separated by commas: any of ${FAIL_ON_CHOICES.join(', ')}. Default \`${DEFAULT_POLICY.failOn.join(',')}\`.`, arg: 'STATUSES', help: `final statuses that fail the run (exit 1), separated by commas: any of ${FAIL_ON_CHOICES.join(', ')}; default ${DEFAULT_POLICY.failOn.join(',')}`, group: 'deadline' },
  api_host: { type: 'text', default: NEON_API_HOST, description: `API base URL; https (http only for 127.0.0.1, ::1, localhost). Default \`${NEON_API_HOST}\`.`, arg: 'URL', env: 'NEON_API_HOST', group: 'api' },
  summary: { type: 'bool', default: 'true', description: '`false` writes no job summary and leaves the `summary` output empty. Default `true`.', only: 'action' },
  summary_limit: { type: 'count', default: '20', description: 'How many operations the summary lists (the newest, or those since `since`), 0 to 1000. Default `20`.', arg: 'N', min: 0, max: 1000, group: 'output' },
  since: { type: 'text', default: '', description: 'List operations since an ISO 8601 time (2026-11-25, 20261125) or a duration ago (2h, 7d). Default: the newest.', arg: 'TIME', group: 'output' },
  comment_on_pr: { type: 'bool', default: 'false', description: '`true` posts the summary as one sticky comment on the pull request. Default `false`.', only: 'action' },
  comment_tag: { type: 'text', default: '', description: 'Keeps the comments of several uses apart (letters, digits, spaces, . _ : / @ + -). Default none.', only: 'action' },
  watch_job: { type: 'bool', default: 'false', description: '`true`: a post step waits for every operation the job started; one that failed fails the job. Default `false`.', only: 'action' },
  database_url: { type: 'text', default: '', description: "After the wait, SELECT 1 on this PostgreSQL URL (`response`: the new branch's) until it answers. Masked. Default none.", arg: 'URL', help: 'then connect until SELECT 1 answers (ps shows it: prefer --database-url-file or --database-url-env)', group: 'database' },
  compare_schema: { type: 'bool', default: 'false', description: "`true` reviews the branch's schema against its parent's in the summary and the PR comment. Default `false`.", help: "compare the branch's schema with its parent's (the review goes to --summary-file)", group: 'database' },
  fail_on_destructive: { type: 'bool', default: 'false', description: '`true` fails the step on a destructive schema change (or a review not taken). Default `false`.', help: 'fail (exit 1) on a destructive schema change', group: 'database' },
  github_token: { type: 'text', default: '${{ github.token }}', description: "Token for the PR comment (`pull-requests: write`) and a sweep's pull requests. Default `github.token`.", arg: 'TOKEN', env: 'GITHUB_TOKEN', secret: true, help: "reads a sweep's pull requests; not recommended (ps shows it): set GITHUB_TOKEN", group: 'request' },
  database_url_file: { type: 'text', default: '', description: 'the database URL, read from a file', only: 'command', arg: 'PATH', group: 'database' },
  database_url_env: { type: 'text', default: '', description: 'the database URL, read from this variable (e.g. DATABASE_URL)', only: 'command', arg: 'NAME', group: 'database' },
  format: { type: 'choice', choices: FORMAT_CHOICES, default: 'text', description: 'on stdout: text (the verdict line) or json (one object, the fields below)', only: 'command', arg: 'FORMAT', group: 'output', short: 'o' },
  json: { type: 'bool', default: 'false', description: 'short for --format json', only: 'command', group: 'output' },
  dotenv: { type: 'text', default: '', description: 'with --create-branch: write the branch\'s DATABASE_URL, DATABASE_URL_POOLED, PGHOST, PGHOST_POOLED, PGDATABASE and PGUSER to this file (mode 0600), as --dotenv-format says', only: 'command', arg: 'FILE', group: 'output' },
  dotenv_format: { type: 'choice', choices: DOTENV_FORMATS, default: 'shell', description: "the --dotenv file's lines: shell (export KEY='value', for `set -a; . FILE` or $BASH_ENV) or gitlab (KEY=value, for a GitLab dotenv report)", only: 'command', arg: 'FORMAT', group: 'output' },
  summary_file: { type: 'text', default: '', description: 'write the Markdown report (as the job summary)', only: 'command', arg: 'PATH', group: 'output' },
  junit: { type: 'text', default: '', description: 'write JUnit XML, a test case per operation', only: 'command', arg: 'PATH', group: 'output' },
  progress: { type: 'choice', choices: PROGRESS_CHOICES, default: 'auto', description: 'on stderr: auto (live on a terminal outside CI, else plain), live, plain (a line at least every 30s) or none', only: 'command', arg: 'STYLE', env: 'NEON_OPERATIONS_WAIT_PROGRESS', group: 'output' },
  quiet: { type: 'bool', default: 'false', description: 'only errors on stderr (--progress none)', only: 'command', group: 'output' },
  help: { type: 'bool', default: 'false', description: 'this help', only: 'command', short: 'h', group: 'about' },
  version: { type: 'bool', default: 'false', description: 'the version', only: 'command', short: 'v', group: 'about' }
} satisfies Record<string, InputRow>;

/** An input's name, as action.yml spells it: the compiler checks every name the code reads. */
export type InputName = keyof typeof INPUT_ROWS;

export interface Input extends InputRow {
  name: InputName;
}

export const input = (name: InputName): Input => Object.assign({ name }, INPUT_ROWS[name]);

const isInputName = (name: string): name is InputName => Object.hasOwn(INPUT_ROWS, name);

export const INPUTS: readonly Input[] = Object.keys(INPUT_ROWS).filter(isInputName).map(input);

/** The command's flag for an input (`project-id`), without its dashes. */
export const flagOf = (row: Input): string => row.flag ?? row.name.replace(/_/g, '-');
