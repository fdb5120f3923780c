import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';

/**
 * parseArgs' message, but a stray argument is named by its position, never quoted: it is where a
 * secret lands when a value follows a flag that takes none (`--json "$NEON_API_KEY"`).
 */
export function usageError(error: unknown, args: string[], options: ParseArgsOptionsConfig) {
  const { code, message } = error as { code?: string; message: string };
  if (code !== 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return `${message} (see --help).`;
  const { tokens } = parseArgs({ args, options, strict: false, tokens: true });
  const at = tokens.findIndex((token) => token.kind === 'positional');
  const [before, stray] = [tokens[at - 1], tokens[at]];
  const flag = before?.kind === 'option' && options[before.name]?.type === 'boolean';
  return (
    `Argument ${(stray?.index ?? 0) + 1} is not an option (its value is not shown)` +
    `${flag ? `, and ${before.rawName} takes no value` : ''}: this command takes options only (see --help).`
  );
}
