/**
 * Every input, once: the action's `with:` names (action.yml is checked against these rows), the
 * command's flags and help, docs/cli.md's options and the README's table (`npm run docs`).
 */
export interface Input {
  /** The name in action.yml, and in messages and code; the flag is `--name-with-hyphens`. */
  name: string;
  /** How the value reads: a duration (ms), a whole number, true or false, or text. */
  type: 'duration' | 'count' | 'bool' | 'text';
  /** The value when unset, as action.yml writes it. */
  default?: string;
  /** Bounds: milliseconds for a duration, the number for a count. */
  min?: number;
  max?: number;
  /** One line, stating the default (and bounds); action.yml's description. */
  description: string;
  /** Where the input exists; the action and the command by default. */
  only?: 'action' | 'command';
  /** The command's argument (`ID`); none for a switch. */
  arg?: string;
  /** Read from this environment variable when the flag is absent. */
  env?: string;
  /** The command's own words, where the action's do not fit it. */
  help?: string;
  /** The command's flag when it is not the name (`--no-wait` sets `wait` to false). */
  flag?: string;
  short?: string;
  /** The command may repeat the flag (values joined by commas). */
  multiple?: boolean;
  /** Named by its variable in the command's messages: its flag is discouraged. */
  secret?: boolean;
}

export const INPUTS: readonly Input[] = [
  {
    name: 'api_key',
    type: 'text',
    description: 'Required. Neon API key, from a secret. Masked at once; never printed.',
    arg: 'KEY',
    env: 'NEON_API_KEY',
    secret: true,
    help: 'not recommended (ps shows it): set NEON_API_KEY'
  },
  {
    name: 'project_id',
    type: 'text',
    default: '',
    description:
      'Project id. Default: taken from `operations`, else the only project the key can see.',
    arg: 'ID'
  },
  {
    name: 'org_id',
    type: 'text',
    default: '',
    description: 'Organization id, to find the project with a personal key. Default none.',
    arg: 'ID'
  },
  {
    name: 'branch_id',
    type: 'text',
    default: '',
    description:
      "Branch id. Without operation ids, wait until this branch is idle; also scopes the summary's recent operations. Default: the whole project.",
    arg: 'ID'
  },
  {
    name: 'operation_id',
    type: 'text',
    default: '',
    description: 'Operation ids (UUIDs), separated by commas, spaces or newlines. Default none.',
    arg: 'ID',
    multiple: true,
    help: 'an operation to wait for (repeat it, or a, b, c)'
  },
  {
    name: 'operations',
    type: 'text',
    default: '',
    description:
      'JSON: the body of a response that started work (with an `operations` array), or that array. Default none.',
    arg: 'JSON',
    help: 'the API response that started the work (or its "operations" array): JSON, @FILE, or - for stdin'
  },
  {
    name: 'wait',
    type: 'bool',
    default: 'true',
    description: '`false` reports the current state and succeeds, without waiting. Default `true`.',
    flag: 'no-wait',
    help: 'look once and report, whatever the status'
  },
  {
    name: 'timeout',
    type: 'duration',
    default: '10m',
    min: 1000,
    max: 6 * 3_600_000, // a hosted job's longest run
    description: 'Deadline of the wait, 1s to 6h: 90, 90s, 15m, 1h or 1m30s. Default `10m`.',
    arg: 'DURATION'
  },
  {
    name: 'interval',
    type: 'duration',
    default: '5s',
    min: 1000,
    max: 3_600_000,
    description: 'Steady polling interval, 1s to 1h; the first checks come sooner. Default `5s`.',
    arg: 'DURATION'
  },
  {
    name: 'fail_fast',
    type: 'bool',
    default: 'false',
    description:
      '`true` ends the wait on the first `failed` status, although Neon may still retry the operation. Default `false`.'
  },
  {
    name: 'api_host',
    type: 'text',
    default: 'https://console.neon.tech/api/v2',
    description:
      'API base URL; https (plain http only for 127.0.0.1, ::1 or localhost). Default `https://console.neon.tech/api/v2`.',
    arg: 'URL'
  },
  {
    name: 'summary',
    type: 'bool',
    default: 'true',
    description:
      '`false` writes no job summary and leaves the `summary` output empty. Default `true`.',
    only: 'action'
  },
  {
    name: 'summary_limit',
    type: 'count',
    default: '20',
    min: 0,
    max: 1000,
    description:
      'How many operations the summary lists (the newest, or those since `since`), 0 to 1000. Default `20`.',
    arg: 'N'
  },
  {
    name: 'since',
    type: 'text',
    default: '',
    description:
      'List operations created since an ISO 8601 time or date (e.g. 20261125) or a duration ago with its unit (2h, 7d). Default: the newest.',
    arg: 'TIME'
  },
  {
    name: 'comment_on_pr',
    type: 'bool',
    default: 'false',
    description:
      '`true` posts the summary as one sticky comment on the pull request. Default `false`.',
    only: 'action'
  },
  {
    name: 'comment_tag',
    type: 'text',
    default: '',
    description:
      'Keeps the comments of several uses apart (letters, digits, spaces, . _ : / @ + -). Default none.',
    only: 'action'
  },
  {
    name: 'watch_job',
    type: 'bool',
    default: 'false',
    description:
      '`true` also waits, in a post step at the end of the job, for every operation the job started, and fails the job when one did not succeed. Default `false`.',
    only: 'action'
  },
  {
    name: 'database_url',
    type: 'text',
    default: '',
    description:
      'PostgreSQL URL. After a successful wait, run SELECT 1 until it answers or the timeout passes. Masked at once. Default none (no check).',
    arg: 'URL',
    help: 'then connect until SELECT 1 answers (ps shows it: prefer the next two)'
  },
  {
    name: 'github_token',
    type: 'text',
    default: '${{ github.token }}',
    description:
      "Token for the PR comment; needs `pull-requests: write`. Default `github.token` (the job's token).",
    only: 'action'
  },
  ...(
    [
      ['database_url_file', 'PATH', 'the database URL, read from a file'],
      ['database_url_env', 'NAME', 'the database URL, read from this variable (e.g. DATABASE_URL)'],
      ['json', '', 'print one JSON object (the fields below) instead of the verdict line'],
      ['summary_file', 'PATH', 'write the Markdown report (as the job summary)'],
      ['junit', 'PATH', 'write JUnit XML, a test case per operation'],
      ['help', '', 'this help', 'h'],
      ['version', '', 'the version', 'v']
    ] as const
  ).map(([name, arg, help, short]): Input => {
    const row: Input = { name, type: arg ? 'text' : 'bool', description: help, only: 'command' };
    return { ...row, ...(arg && { arg }), ...(short && { short }) };
  })
];

export const input = (name: string): Input => {
  const row = INPUTS.find((r) => r.name === name);
  if (!row) throw new Error(`No input '${name}'`);
  return row;
};

/** The command's flag for an input (`--project-id`), without its dashes. */
export const flagOf = (row: Input): string => row.flag ?? row.name.replace(/_/g, '-');
