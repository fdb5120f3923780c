#!/usr/bin/env node
// The command's entry (dist/cli/index.js): the process's streams, environment and signals.
import { start } from '../util/entry.js';
import { main } from './main.js';

const { stdout, stderr, stdin, env } = process;
const argv = process.argv.slice(2);
// A reader that went away (`| head -n 1`) loses the rest of that stream, and only that: the wait,
// the report files and the exit code go on.
for (const stream of [stdout, stderr])
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
start(
  async (signal, writing) =>
    (process.exitCode = await main(argv, { stdout, stderr, stdin, env, signal, writing })),
  (message) => {
    stderr.write(`${message}\n`);
    process.exitCode = 1;
  }
);
