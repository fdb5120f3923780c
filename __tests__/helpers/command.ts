import { mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Simulator } from '../../simulator/server.js';
import { readJunit } from './junit.js';
import { PROJECT } from './sim.js';

// What the command's tests share, in-process (command.test.ts) and spawned (e2e/cli.test.ts).

/** Fresh paths for the JUnit file and the summary, in a new folder under `dir`. */
export function reportFiles(dir: string): { junit: string; summary: string } {
  const at = mkdtempSync(join(dir, 'run-'));
  return { junit: join(at, 'junit.xml'), summary: join(at, 'summary.md') };
}

export const apiFlags = (sim: Simulator): string[] => ['--api-host', sim.url, '--interval', '1s'];

/** The flags of a wait for one operation of the test project. */
export const waitForFlags = (sim: Simulator, id: string): string[] => [
  ...apiFlags(sim),
  '--project-id',
  PROJECT,
  '--operation-id',
  id
];

/** The JUnit file as a JUnit reader (junit2json) reads it, not as text. */
export const parseJunit = (path: string) => readJunit(readFileSync(path, 'utf8'));
