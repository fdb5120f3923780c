// The command's arguments: flags made from the input rows, read from argv once, and the usage
// error when argv does not parse (an unknown flag, a missing value, a stray argument).
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { flagOf, type Input, INPUTS } from '../inputs.js';
import type { Naming } from '../util/errors.js';

export const FLAGS = INPUTS.filter((row) => row.only !== 'action');

const option = ({ arg, multiple = false, short }: Input) =>
  ({ type: arg ? 'string' : 'boolean', multiple, ...(short && { short }) }) as const;
const OPTIONS: ParseArgsOptionsConfig = Object.fromEntries(
  FLAGS.map((r) => [flagOf(r), option(r)])
);

export type Flags = Record<string, string | boolean | Array<string | boolean> | undefined>;

/** How the command names an input: by its flag, or by its variable for a secret (the key). */
export const cliNaming: Naming = (name) => {
  const row = INPUTS.find((r) => r.name === name);
  return !row ? name : row.secret && row.env ? row.env : `--${flagOf(row)}`;
};

/**
 * The flags given, and the usage error when argv does not parse. With an error, the flags are
 * still those parseArgs could read (the output format among them, so that a usage error ends in
 * the format asked for), never a second reading of argv by hand.
 */
export function readArgs(argv: string[]): { flags: Flags; usage?: string } {
  try {
    return { flags: parseArgs({ args: argv, options: OPTIONS, strict: true }).values };
  } catch (error) {
    const { values } = parseArgs({ args: argv, options: OPTIONS, strict: false });
    // Not strict, an unknown flag is read as a switch, and a known one may be of the wrong type.
    const known = Object.entries(values).filter(([name, value]) => {
      const type = OPTIONS[name]?.type;
      return (
        type !== undefined &&
        [value].flat().every((v) => typeof v === (type === 'string' ? 'string' : 'boolean'))
      );
    });
    return { flags: Object.fromEntries(known), usage: usageError(error, argv) };
  }
}

/** parseArgs' message, but a stray argument is named by position: it may be a secret (`--json $KEY`). */
export function usageError(error: unknown, args: string[], options = OPTIONS): string {
  const { code, message } = error as { code?: string; message: string };
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const given = /'(-[^']*)'/.exec(message)?.[1];
    const meant = given && nearestFlag(given, Object.keys(options));
    if (meant) return `Unknown option '${given}': did you mean --${meant}? (see --help)`;
  }
  if (code !== 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return `${message} (see --help).`;
  const { tokens } = parseArgs({ args, options, strict: false, tokens: true });
  const at = tokens.findIndex((token) => token.kind === 'positional');
  const flag = tokens[at - 1];
  const hint = flag?.kind === 'option' && !flag.value ? `, and ${flag.rawName} takes no value` : '';
  return `Argument ${tokens[at]!.index + 1} is not an option (its value is not shown)${hint}: this command takes options only (see --help).`;
}

/**
 * The flag a mistyped one most likely meant: the nearest by edit distance (a swap of two neighbours
 * counts one, as in `--projcet-id`), within a third of its length; none when nothing is that near.
 */
export function nearestFlag(given: string, flags: readonly string[]): string | undefined {
  const name = given.replace(/^-+/, '').replace(/=.*$/, '');
  let best: { flag: string; distance: number } | undefined;
  for (const flag of flags) {
    const distance = editDistance(name, flag);
    if (distance < (best?.distance ?? Infinity)) best = { flag, distance };
  }
  const near = best && best.distance <= Math.max(1, Math.floor(name.length / 3));
  return near ? best!.flag : undefined;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0))
  );
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  return d[a.length]![b.length]!;
}
