import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Simulator } from '../../simulator/server.js';
import { readJunit } from './junit.js';
import { NODE, ROOT } from './run-action.js';
import { DEFAULT_KEY, PROJECT } from './sim.js';

// What the command's tests share, in-process (command.test.ts) and spawned (e2e/cli.test.ts).

/** Fresh paths for the JUnit file and the summary, in a new folder under `dir`. */
export function reportFiles(dir: string): { junit: string; summary: string } {
  const at = mkdtempSync(join(dir, 'run-'));
  return { junit: join(at, 'junit.xml'), summary: join(at, 'summary.md') };
}

export const apiFlags = (sim: Simulator): string[] => ['--api-host', sim.url, '--interval', '1s'];

/** The flags that point the command at the test project. */
export const projectFlags = (sim: Simulator): string[] => [
  ...apiFlags(sim),
  '--project-id',
  PROJECT
];

/** The flags of a wait for one operation of the test project. */
export const waitForFlags = (sim: Simulator, id: string): string[] => [
  ...projectFlags(sim),
  '--operation-id',
  id
];

/**
 * The built command (dist/cli) run as a user runs it, its key in `NEON_API_KEY` and its home in
 * `home`; `stdin` written, then closed. What it printed, once it has exited.
 */
export async function runBuiltCommand(
  args: string[],
  { home, stdin = '' }: { home: string; stdin?: string }
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(NODE, [join(ROOT, 'dist', 'cli', 'index.js'), ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: home, NEON_API_KEY: DEFAULT_KEY }
  });
  child.stdin.end(stdin);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stdout, stderr };
}

/** The JUnit file as a JUnit reader (junit2json) reads it, not as text. */
export const parseJunit = (path: string) => readJunit(readFileSync(path, 'utf8'));
