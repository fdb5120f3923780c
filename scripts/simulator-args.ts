// What `npm run simulator` is asked (scripts/simulator.ts): read apart from the server it starts,
// so that a test can read it.
import { parseArgs } from 'node:util';

export const SIMULATOR_USAGE = `Usage: npm run simulator -- [--port PORT] [--database]

Serves a stand-in for the Neon API on 127.0.0.1 (no account, no key), and prints the lines to
paste for the command and the inputs for the action.

  --port PORT   listen on this port (default: any free one)
  --database    also start a local PostgreSQL server, which new branches' connection URIs reach
  -h, --help    show this help
`;

const OPTIONS = {
  port: { type: 'string' },
  database: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' }
} as const;

/** Where to listen and whether to start PostgreSQL; or what to print, where, and the exit code. */
export type SimulatorArgs =
  | { port: number; database: boolean }
  | { exitCode: 0 | 2; stream: 'stdout' | 'stderr'; text: string };

export function readSimulatorArgs(args: string[]): SimulatorArgs {
  const wrong = (why: string): SimulatorArgs => ({
    exitCode: 2,
    stream: 'stderr',
    text: `${why}\n\n${SIMULATOR_USAGE}`
  });
  let flags;
  try {
    flags = parseArgs({ args, options: OPTIONS }).values;
  } catch (error) {
    return wrong((error as Error).message);
  }
  if (flags.help) return { exitCode: 0, stream: 'stdout', text: SIMULATOR_USAGE };
  const port = Number(flags.port ?? 0);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    return wrong(`--port ${flags.port}: not a port number (0 to 65535).`);
  return { port, database: flags.database ?? false };
}
