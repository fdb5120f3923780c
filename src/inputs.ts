/**
 * Every input, once: action.yml is checked against these rows; the command's flags and help and
 * the docs' tables are made from them (`npm run docs`). `name`: action.yml's, and the flag's
 * (`--name-with-hyphens`) unless `flag` says otherwise (`--no-wait` sets `wait` to false).
 * `default`: as action.yml writes it (none: required). `min`, `max`: bounds in ms for a duration.
 * `description`: one line stating the default and bounds; `help`: the command's words where those
 * do not fit. `only`: the one front end that has it. `arg`: the flag's argument (none: a switch).
 * `env`: read when the flag is absent. `secret`: the command names it by its variable (its flag is
 * discouraged). `multiple`: the flag may be repeated.
 */
export interface Input {
  name: string;
  type: 'duration' | 'count' | 'bool' | 'text';
  default?: string;
  min?: number;
  max?: number;
  description: string;
  only?: 'action' | 'command';
  arg?: string;
  env?: string;
  help?: string;
  flag?: string;
  short?: string;
  multiple?: boolean;
  secret?: boolean;
}

const H = 3_600_000;

// A table, one input a line: name, type, default, description, the rest.
// prettier-ignore
const ROWS: Array<[string, Input['type'], string | undefined, string, Partial<Input>?]> = [
  ['api_key', 'text', undefined, 'Required. Neon API key, from a secret. Masked at once; never printed.', { arg: 'KEY', env: 'NEON_API_KEY', secret: true, help: 'not recommended (ps shows it): set NEON_API_KEY' }],
  ['project_id', 'text', '', 'Project id. Default: taken from `operations`, else the only project the key can see.', { arg: 'ID', env: 'NEON_PROJECT_ID' }],
  ['org_id', 'text', '', 'Organization id, to find the project with a personal key. Default none.', { arg: 'ID' }],
  ['branch_id', 'text', '', "Branch id. Without operation ids, wait until this branch is idle; also scopes the summary's recent operations. Default: the whole project.", { arg: 'ID' }],
  ['operation_id', 'text', '', 'Operation ids (UUIDs), separated by commas, spaces or newlines. Default none.', { arg: 'ID', multiple: true, help: 'an operation to wait for (repeat it, or a, b, c)' }],
  ['operations', 'text', '', 'JSON: the body of a response that started work (with an `operations` array), or that array. Default none.', { arg: 'JSON', help: 'the API response that started the work (or its "operations" array): JSON, @FILE, or - for stdin' }],
  ['request', 'text', '', 'A Neon API request to send first, then wait for its operations: a method and a path under `api_host`, e.g. `POST /projects/{project_id}/branches`. Default none.', { arg: 'REQUEST' }],
  ['body', 'text', '', 'JSON body of `request` (not with GET). Default none.', { arg: 'JSON', help: 'the JSON body of --request: JSON, @FILE, or - for stdin' }],
  ['wait', 'bool', 'true', '`false` reports the current state and succeeds, without waiting. Default `true`.', { flag: 'no-wait', help: 'look once and report, whatever the status' }],
  ['timeout', 'duration', '10m', 'Deadline of the wait, 1s to 6h: 90, 90s, 15m, 1h or 1m30s. Default `10m`.', { arg: 'DURATION', min: 1000, max: 6 * H }], // a hosted job's longest run
  ['interval', 'duration', '5s', "Longest gap between checks, 1s to 1h; the first come sooner, and with the project's history they come where the end is likely. Default `5s`.", { arg: 'DURATION', min: 1000, max: H }],
  ['fail_fast', 'bool', 'false', '`true` ends the wait on the first `failed` status, although Neon may still retry the operation. Default `false`.', { help: 'end at a failed status, not wait for its retry' }],
  ['api_host', 'text', 'https://console.neon.tech/api/v2', 'API base URL; https (plain http only for 127.0.0.1, ::1 or localhost). Default `https://console.neon.tech/api/v2`.', { arg: 'URL', env: 'NEON_API_HOST' }],
  ['summary', 'bool', 'true', '`false` writes no job summary and leaves the `summary` output empty. Default `true`.', { only: 'action' }],
  ['summary_limit', 'count', '20', 'How many operations the summary lists (the newest, or those since `since`), 0 to 1000. Default `20`.', { arg: 'N', min: 0, max: 1000 }],
  ['since', 'text', '', 'List operations created since an ISO 8601 time or date (e.g. 20261125) or a duration ago with its unit (2h, 7d). Default: the newest.', { arg: 'TIME' }],
  ['comment_on_pr', 'bool', 'false', '`true` posts the summary as one sticky comment on the pull request. Default `false`.', { only: 'action' }],
  ['comment_tag', 'text', '', 'Keeps the comments of several uses apart (letters, digits, spaces, . _ : / @ + -). Default none.', { only: 'action' }],
  ['watch_job', 'bool', 'false', '`true` also waits, in a post step at the end of the job, for every operation the job started, and fails the job when one did not succeed. Default `false`.', { only: 'action' }],
  ['database_url', 'text', '', "PostgreSQL URL, or `response` (the request's answer's). After a successful wait, run SELECT 1 until it answers or the timeout passes. Masked at once. Default none (no check).", { arg: 'URL', help: 'then connect until SELECT 1 answers (ps shows it: prefer the next two)' }],
  ['github_token', 'text', '${{ github.token }}', "Token for the PR comment; needs `pull-requests: write`. Default `github.token` (the job's token).", { only: 'action' }],
  ['database_url_file', 'text', '', 'the database URL, read from a file', { only: 'command', arg: 'PATH' }],
  ['database_url_env', 'text', '', 'the database URL, read from this variable (e.g. DATABASE_URL)', { only: 'command', arg: 'NAME' }],
  ['json', 'bool', 'false', 'print one JSON object (the fields below) instead of the verdict line', { only: 'command' }],
  ['summary_file', 'text', '', 'write the Markdown report (as the job summary)', { only: 'command', arg: 'PATH' }],
  ['junit', 'text', '', 'write JUnit XML, a test case per operation', { only: 'command', arg: 'PATH' }],
  ['progress', 'text', 'auto', 'on stderr: auto (live on a terminal outside CI, else plain), live, plain (a line at least every 30s) or none', { only: 'command', arg: 'STYLE', env: 'NEON_OPERATIONS_WAIT_PROGRESS' }],
  ['quiet', 'bool', 'false', 'only errors on stderr (--progress none)', { only: 'command' }],
  ['help', 'bool', 'false', 'this help', { only: 'command', short: 'h' }],
  ['version', 'bool', 'false', 'the version', { only: 'command', short: 'v' }]
];

export const INPUTS: readonly Input[] = ROWS.map(([name, type, value, description, rest]) =>
  Object.assign({ name, type, default: value, description }, rest)
);

export function input(name: string): Input {
  const row = INPUTS.find((r) => r.name === name);
  if (row) return row;
  throw new Error(`No input '${name}'`);
}

/** The command's flag for an input (`project-id`), without its dashes. */
export const flagOf = (row: Input): string => row.flag ?? row.name.replace(/_/g, '-');
