#!/usr/bin/env node
// The command's entry (dist/cli/index.js): the process's streams, environment and signals.
import { readFileSync } from 'node:fs';
import { start } from '../util/entry.js';
import { main } from './main.js';

const { stdout, stderr, env } = process;
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
