// `--help`: made from the input rows, as docs/cli.md's table is (`npm run docs`).
import { flagOf, type Input } from '../inputs.js';
import { COMMAND_FIELDS, OUTPUTS } from '../outputs.js';
import { FLAGS } from './args.js';

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
