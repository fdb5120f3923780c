#!/usr/bin/env node
// The command's entry (dist/cli/index.js): the process's streams, environment and signals.
import { start } from '../util/entry.js';
import { main } from './main.js';

const { stdout, stderr, stdin, env } = process;
const argv = process.argv.slice(2);
// A stream that cannot be written (a reader gone, a full disk) loses the rest of it, and only that:
// the wait, the report files and the exit code go on. A result not written is main's to tell
// (its write's callback): exit 2.
for (const stream of [stdout, stderr]) stream.on('error', () => undefined);
start(
  async (signal, writing) =>
    (process.exitCode = await main(argv, { stdout, stderr, stdin, env, signal, writing })),
  (message) => {
    stderr.write(`${message}\n`);
    process.exitCode = 1;
  }
);
