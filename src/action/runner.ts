import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { EOL } from 'node:os';

/**
 * The Actions runner's protocol: inputs from `INPUT_*` variables, outputs and the step summary
 * appended to the files the runner names, log commands on stdout. This is the part of
 * `@actions/core` the action uses, written out because importing `@actions/core` also loads its
 * HTTP client and a second copy of undici (for OIDC tokens, which this action never asks for),
 * which by itself takes twice as long as starting Node.
 */

export function getInput(name: string): string {
  return process.env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] ?? '';
}

export function isDebug(): boolean {
  return process.env.RUNNER_DEBUG === '1';
}

/** `%`, CR and LF would end or forge a command, so they are percent-encoded as the runner expects. */
export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

export function command(name: string, message: string): void {
  process.stdout.write(`::${name}::${escapeData(message)}${EOL}`);
}

export function info(message: string): void {
  process.stdout.write(message + EOL);
}

export function setSecret(value: string): void {
  command('add-mask', value);
}

export function setFailed(message: string): void {
  process.exitCode = 1;
  command('error', message);
}

export function setOutput(name: string, value: string): void {
  const file = process.env.GITHUB_OUTPUT;
  if (!file) {
    // Runners older than the file commands: the deprecated stdout form.
    process.stdout.write(EOL);
    command(`set-output name=${name}`, value);
    return;
  }
  const delimiter = `ghadelimiter_${randomUUID()}`;
  appendFileSync(file, `${name}<<${delimiter}${EOL}${value}${EOL}${delimiter}${EOL}`, 'utf8');
}

/** Appends Markdown to the step summary; false when the runner gave no summary file. */
export function appendSummary(markdown: string): boolean {
  const file = process.env.GITHUB_STEP_SUMMARY;
  if (!file) return false;
  appendFileSync(file, markdown.endsWith(EOL) ? markdown : markdown + EOL, 'utf8');
  return true;
}
