/**
 * `npm run demo`: the action, built, against the local simulator, run the way the Actions runner
 * runs it. A branch is being created and its compute started; the action waits for both.
 * `npm run demo -- --database` also starts a real PostgreSQL server on 127.0.0.1 (about a second)
 * and passes its URL as `database_url`: the step then waits until `SELECT 1` answers.
 * `npm run demo -- --fail`: the compute's start ends in `error`, and so does the step (the red
 * summary, exit 1).
 * `npm run demo -- --schema`: the new branch's migration dropped a column and a table; with
 * `compare_schema` the summary reviews its schema against its parent's and names both.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { branchCreation, DEFAULT_KEY } from '../simulator/scenario.js';
import { type Cluster, createCluster, urlFor } from '../simulator/postgres.js';
import { DROP_COLUMN_AND_TABLE } from '../simulator/schema-diffs.js';
import { startSimulator } from '../simulator/server.js';
import { parseOutputFile, setOutputsText } from './runner-outputs.js';

const root = resolve(import.meta.dirname, '..', '..');
const fail = process.argv.includes('--fail');
const schema = process.argv.includes('--schema');
const { scenario, createBranch, startCompute } = branchCreation(undefined, { fail });
const branchId = createBranch.branch_id ?? '';
if (schema) scenario.schemaDiffs = { [branchId]: DROP_COLUMN_AND_TABLE };
const sim = await startSimulator({ scenario });
let database: Cluster | undefined;
let databaseUrl = '';
if (process.argv.includes('--database')) {
  database = await createCluster();
  const password = `demo-${Date.now().toString(36)}`;
  await database.start();
  await database.sql(
    `CREATE ROLE app LOGIN PASSWORD '${password}'`,
    'CREATE DATABASE appdb OWNER app'
  );
  databaseUrl = urlFor(database, 'app', password, 'appdb');
}
const dir = mkdtempSync(join(tmpdir(), 'neon-wait-demo-'));
const files = {
  output: join(dir, 'output'),
  summary: join(dir, 'summary.md'),
  event: join(dir, 'event.json'),
  state: join(dir, 'state')
};
writeFileSync(files.state, '');
writeFileSync(files.output, '');
writeFileSync(files.summary, '');
writeFileSync(files.event, '{}');

// What a create-branch request answered: the operations it started, still in progress.
const response = {
  branch: { id: createBranch.branch_id },
  operations: [sim.render(createBranch), sim.render(startCompute)]
};
const inputs: Record<string, string> = {
  api_key: DEFAULT_KEY,
  operations: JSON.stringify(response),
  api_host: sim.url,
  timeout: '1m',
  interval: '5s',
  wait: 'true',
  fail_fast: 'false',
  summary: 'true',
  summary_limit: '10',
  database_url: databaseUrl,
  ...(schema && { branch_id: branchId, compare_schema: 'true' })
};
const env: Record<string, string> = {
  PATH: process.env.PATH ?? '',
  GITHUB_OUTPUT: files.output,
  GITHUB_STEP_SUMMARY: files.summary,
  GITHUB_STATE: files.state,
  GITHUB_EVENT_PATH: files.event,
  GITHUB_EVENT_NAME: 'push',
  GITHUB_REPOSITORY: 'octo-org/demo',
  RUNNER_TEMP: dir
};
for (const [name, value] of Object.entries(inputs)) env[`INPUT_${name.toUpperCase()}`] = value;

console.log(`Simulator at ${sim.url}: create_branch and start_compute are in progress.`);
if (fail) console.log('start_compute will end in error (--fail): the step fails, exit 1.');
if (schema) console.log('The branch dropped a column and a table: the summary reviews its schema.');
if (database)
  console.log(`PostgreSQL at 127.0.0.1:${database.port}: the step will wait for SELECT 1.`);
console.log('Running dist/index.js as the runner would...\n');
console.log('──── log ────');
const code = await new Promise<number | null>((done) => {
  const child = spawn(process.execPath, [join(root, 'dist', 'index.js')], {
    env,
    stdio: ['ignore', 'pipe', 'inherit']
  });
  // The runner consumes `::add-mask::` commands instead of printing them; so does this demo.
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (!line.startsWith('::add-mask::')) console.log(line);
  });
  child.on('close', done);
});
await sim.close();
await database?.remove();

console.log('\n──── outputs ($GITHUB_OUTPUT) ────');
const outputs = parseOutputFile(readFileSync(files.output, 'utf8'));
console.log(setOutputsText(outputs, { summary: '(the same Markdown as the job summary below)' }));
console.log('\n──── job summary ($GITHUB_STEP_SUMMARY) ────');
console.log(readFileSync(files.summary, 'utf8'));
console.log(`──── exit code ${code}, ${sim.requests.length} API requests ────`);
rmSync(dir, { recursive: true, force: true });
process.exitCode = code ?? 1;
