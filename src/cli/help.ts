// `--help`: made from the input rows, as docs/reference.md's tables are (`npm run docs`): each flag
// under its row's group, then examples of the four common uses.
import { type FlagGroup, flagOf, type Input, INPUTS } from '../inputs.js';
import { COMMAND_FIELDS, OUTPUTS } from '../outputs.js';
import { FLAGS } from './args.js';

/** The help's headings, in its order. */
const GROUPS = {
  target: 'What to wait for (operation ids, else the branch, else the project until idle)',
  request: 'The request (sent first; then its operations are waited for)',
  deadline: 'Deadlines and verdict',
  output: 'Output',
  database: 'Database (checked after a successful wait)',
  api: 'The API',
  about: 'About'
} satisfies Record<FlagGroup, string>;

/** `-t, --timeout DURATION`: the short name first, as gh and kubectl print it. */
export const flagUsage = (row: Input): string =>
  `${row.short ? `-${row.short}, ` : ''}--${flagOf(row)}${row.arg ? ` ${row.arg}` : ''}`;

/** A row's words for the command: an input named in backquotes (`since`) becomes its flag. */
export const flagText = (row: Input): string =>
  (row.help ?? row.description).replace(/`([^`]*)`/g, (_, word: string) => {
    const named = INPUTS.find((r) => r.name === word && r.only !== 'action');
    return named ? `--${flagOf(named)}` : word;
  });

const WIDTH = 26;
/** `text` wrapped at 80 columns, each line after the first indented by `indent`. */
const wrap = (text: string, indent: number): string =>
  text
    .replace(new RegExp(`(.{1,${78 - indent}})(?: |$)`, 'g'), `$1\n${' '.repeat(indent)}`)
    .trimEnd();

/**
 * `  --flag ARG   text`, the text wrapped under itself; a left side too long for its column puts
 * the text on the next line (never run together).
 */
const entry = (left: string, text: string): string => {
  const head = left.length < WIDTH ? left.padEnd(WIDTH) : `${left}\n${' '.repeat(WIDTH + 2)}`;
  return `  ${head}${wrap(text, WIDTH + 2)}`;
};

const groupOf = (row: Input): FlagGroup => row.group ?? 'about';

const EXAMPLES = [
  '  # Wait for the operations a response started, piped in',
  '  curl -sSf -X POST -H "Authorization: Bearer $NEON_API_KEY" \\',
  '    https://console.neon.tech/api/v2/projects/$ID/branches \\',
  '    | neon-operations-wait --operations -',
  '  # Send a request (riding out 423, 429, 503), then wait for what it started',
  '  neon-operations-wait --project-id $ID -t 15m \\',
  "    --request 'POST /projects/{project_id}/branches' \\",
  '    --body \'{"branch": {"name": "preview-42"}}\'',
  '  # Wait until a branch is idle',
  '  neon-operations-wait --project-id $ID --branch-id br-quiet-sun-07272eb0',
  '  # Then check its database: SELECT 1 until it answers',
  '  neon-operations-wait --project-id $ID --branch-id br-quiet-sun-07272eb0 \\',
  '    --database-url-env DATABASE_URL'
];

export const HELP = [
  'Usage: neon-operations-wait [options]',
  'Waits for Neon control-plane operations to finish and reports them.',
  'The API key comes from NEON_API_KEY.',
  ...(Object.keys(GROUPS) as FlagGroup[]).flatMap((group) => [
    '',
    `${GROUPS[group]}:`,
    ...FLAGS.filter((row) => groupOf(row) === group).map((row) =>
      entry(flagUsage(row), flagText(row))
    )
  ]),
  '',
  'JSON fields (--format json):',
  `  ${wrap([...OUTPUTS.filter((o) => o.value), ...COMMAND_FIELDS].map((f) => f.name).join(', '), 2)}`,
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
  '',
  'Examples:',
  ...EXAMPLES,
  '',
  'More in the repository: every flag and JSON field in docs/reference.md, CI',
  'examples, stdout, stderr and exit codes in docs/cli.md.',
  ''
].join('\n');
