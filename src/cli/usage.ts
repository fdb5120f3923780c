import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';

/**
 * parseArgs' message, but a stray argument is named by its position, never quoted: a secret lands
 * there when a value follows a flag that takes none (`--json "$NEON_API_KEY"`).
 */
export function usageError(error: unknown, args: string[], options: ParseArgsOptionsConfig) {
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
