/**
 * `npm run local`: the action from its TypeScript sources, main step then post step, with GitHub's
 * @github/local-action, against the local API simulator. Only the simulator's key is used:
 * local-action prints what the action masks (`::add-mask::<value>`) on the terminal, so a real key
 * would end up on screen and in any captured log. For a real project, use the command
 * (`dist/cli/index.js`), which never prints the key.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { branchCreation, DEFAULT_KEY } from '../simulator/scenario.js';
import { startSimulator } from '../simulator/server.js';

const root = resolve(import.meta.dirname, '..', '..');
const { scenario, createBranch, startCompute } = branchCreation();
const sim = await startSimulator({ scenario, startOnFirstRequest: true });
const dir = mkdtempSync(join(tmpdir(), 'neon-wait-local-'));
const env = {
  INPUT_API_KEY: DEFAULT_KEY,
  INPUT_API_HOST: sim.url,
  INPUT_OPERATIONS: JSON.stringify({
    operations: [sim.render(createBranch), sim.render(startCompute)]
  }),
  INPUT_WATCH_JOB: 'true',
  INPUT_TIMEOUT: '1m',
  // local-action prints the outputs itself (its "Action Outputs" table), and writes no
  // $GITHUB_OUTPUT file; the summary it writes where this says.
  GITHUB_STEP_SUMMARY: join(root, 'local-summary.md'),
  GITHUB_STATE: join(dir, 'state')
};
const envFile = join(dir, '.env');
writeFileSync(
  envFile,
  Object.entries(env)
    .map(([k, v]) => `${k}='${v}'\n`)
    .join('')
);
for (const file of [env.GITHUB_STEP_SUMMARY, env.GITHUB_STATE]) writeFileSync(file, '');

console.log(`Simulator at ${sim.url} (its own key; no real key is used here).`);
// Asynchronous: this process serves the simulator meanwhile.
const args = ['run', '.', 'src/action/main.ts', envFile, '--post', 'src/action/post.ts'];
const code = await new Promise<number | null>((done) =>
  spawn('npx', ['--yes', '@github/local-action@7.0.1', ...args], {
    cwd: root,
    stdio: 'inherit'
  }).on('close', done)
);
await sim.close();
rmSync(dir, { recursive: true, force: true });
console.log(
  'The outputs are in the tables above (main step, then post step); the summary is in local-summary.md.'
);
process.exitCode = code ?? 1;
