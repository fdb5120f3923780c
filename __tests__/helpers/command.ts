import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import type { Simulator } from '../../simulator/server.js';

// What the command's tests share, in-process (command.test.ts) and spawned (e2e/cli.test.ts).

/** Fresh paths for the JUnit file and the summary, in a new folder under `dir`. */
export function reportFiles(dir: string): { junit: string; summary: string } {
  const at = mkdtempSync(join(dir, 'run-'));
  return { junit: join(at, 'junit.xml'), summary: join(at, 'summary.md') };
}

export const apiFlags = (sim: Simulator): string[] => ['--api-host', sim.url, '--interval', '1s'];

export interface JunitCase {
  name: string;
  failure: { type: string; message: string; text: string } | null;
  skipped: string | null;
}

/** The JUnit file as an XML parser reads it (Python's xml.etree), not as text. */
export function parseJunit(path: string): { tests: number; failures: number; cases: JunitCase[] } {
  const script = `
import json, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
cases = []
for c in root.iter('testcase'):
    f, s = c.find('failure'), c.find('skipped')
    cases.append({'name': c.get('name'),
                  'failure': None if f is None else {'type': f.get('type'), 'message': f.get('message'), 'text': f.text},
                  'skipped': None if s is None else s.get('message')})
print(json.dumps({'tests': int(root.get('tests')), 'failures': int(root.get('failures')), 'cases': cases}))`;
  const run = spawnSync('python3', ['-c', script, path], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout);
}
