#!/usr/bin/env node
// The command's entry (dist/cli/index.js): the process's streams, environment and signals.
import { readFileSync } from 'node:fs';
import { start } from '../util/entry.js';
import { main } from './main.js';

const { stdout, stderr, env } = process;
// A reader that went away (`| head -n 1`) loses the rest of that stream, and only that: the wait,
// the report files and the exit code go on.
for (const stream of [stdout, stderr])
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
start(
  async (signal) =>
    (process.exitCode = await main(process.argv.slice(2), {
      stdout,
      stderr,
      env,
      signal,
      stdin: () => readFileSync(0, 'utf8')
    })),
  (message) => {
    stderr.write(`${message}\n`);
    process.exitCode = 1;
  }
);
