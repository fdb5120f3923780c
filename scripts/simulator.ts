/**
 * `npm run simulator`: the API simulator on 127.0.0.1 with the demo scenario (a branch being
 * created and its compute started), for trying the command or the action by hand or in a workflow
 * job, and the mutations (create, delete and restore a branch, start and suspend an endpoint) with
 * 423 Locked. The operations start at the first request, however long the user takes to paste. It prints
 * the lines to paste for the command and what to pass to the action and, inside GitHub Actions,
 * writes the latter to $GITHUB_OUTPUT as `api_host`, `api_key`, `project_id` and `operations`.
 * Stops on SIGINT/SIGTERM.
 *
 * `--database` also starts a real PostgreSQL server on 127.0.0.1 (about a second), and the
 * branches the simulator creates answer connection URIs that reach it: `--database-url response`
 * (`database_url: response`) then runs end to end, where a made-up `ep-….neon.tech` host would not
 * resolve.
 *
 *   npm run simulator -- [--port 4010] [--database] [--help]
 */
import { appendFileSync } from 'node:fs';
import { type Cluster, createCluster } from '../simulator/postgres.js';
import type { PostgresTarget } from '../simulator/resources.js';
import { branchCreation, DEFAULT_KEY } from '../simulator/scenario.js';
import { startSimulator } from '../simulator/server.js';
import { readSimulatorArgs } from './simulator-args.js';

const asked = readSimulatorArgs(process.argv.slice(2));
if ('exitCode' in asked) {
  process[asked.stream].write(asked.text);
  process.exit(asked.exitCode);
}
const { port } = asked;
let database: Cluster | undefined;
let postgres: PostgresTarget | undefined;
if (asked.database) {
  database = await createCluster();
  const password = `sim-${Date.now().toString(36)}`;
  await database.start();
  await database.sql(
    `CREATE ROLE app LOGIN PASSWORD '${password}'`,
    'CREATE DATABASE appdb OWNER app'
  );
  postgres = { host: database.host, port: database.port, user: 'app', password, database: 'appdb' };
}
const { scenario, createBranch, startCompute } = branchCreation();
const sim = await startSimulator({ scenario, port, startOnFirstRequest: true, postgres });
const operations = JSON.stringify({
  operations: [sim.render(createBranch), sim.render(startCompute)]
});
const values = {
  api_host: sim.url,
  api_key: DEFAULT_KEY,
  project_id: createBranch.project_id,
  operations
};

if (process.env.GITHUB_OUTPUT) {
  appendFileSync(
    process.env.GITHUB_OUTPUT,
    Object.entries(values)
      .map(([name, value]) => `${name}=${value}\n`)
      .join('')
  );
}
// A workflow waits for this line: the outputs are written by then.
console.log(`Neon API simulator listening at ${sim.url}

Try the command (its operations start at its first request):
  export NEON_API_KEY=${DEFAULT_KEY}
  export NEON_API_HOST=${sim.url}
  export NEON_PROJECT_ID=${createBranch.project_id}
  echo '${operations}' | node dist/cli/index.js --operations -

Or the action's inputs:`);
for (const [name, value] of Object.entries(values)) console.log(`  ${name}: ${value}`);
console.log(`
It also serves the mutations (423 Locked while another operation of the project runs, as
until about 4 s after the first request here), with the branch and endpoint reads:
  POST   /projects/{project_id}/branches            (with or without "endpoints")
  DELETE /projects/{project_id}/branches/{branch_id}
  POST   /projects/{project_id}/branches/{branch_id}/restore   (reset: the parent as source_branch_id)
  POST   /projects/{project_id}/endpoints/{endpoint_id}/start | /suspend
  GET    /projects/{project_id}/branches[/{branch_id}[/endpoints]], /projects/{project_id}/endpoints[/{endpoint_id}]`);
console.log(
  database
    ? `
PostgreSQL at ${database.host}:${database.port}: new branches' connection URIs reach it, so
  node dist/cli/index.js --request 'POST /projects/{project_id}/branches' \\
    --body '{"endpoints":[{"type":"read_write"}]}' --database-url response
creates a branch, waits for it and runs SELECT 1 on it.`
    : `
With --database, new branches' connection URIs reach a local PostgreSQL (for --database-url response).`
);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void Promise.all([sim.close(), database?.remove()]).then(() => process.exit(0));
  });
}
