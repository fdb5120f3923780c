import { redact } from './redact.js';

/**
 * Starts an entry file's work: SIGINT and SIGTERM abort it (every signal is caught: a second one
 * must not end the process before the report is out); only a bug reaches `fail`, without a stack.
 */
export function start(
  work: (signal: AbortSignal, next: () => AbortSignal) => Promise<unknown>,
  fail: (message: string) => void
): void {
  let controller = new AbortController();
  for (const name of ['SIGINT', 'SIGTERM'] as const) process.on(name, () => controller.abort());
  // From `next()` on, a signal aborts a fresh signal instead (the command's writing stage).
  const next = (): AbortSignal => (controller = new AbortController()).signal;
  work(controller.signal, next).catch((error: unknown) =>
    fail(`Unexpected failure: ${redact(String((error as Error)?.message ?? error))}`)
  );
}
