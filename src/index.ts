import * as core from '@actions/core';
import { run, runPost } from './main.js';
import { redact } from './util/redact.js';

// The runner sends SIGINT when the job is cancelled (SIGTERM ~7.5 s later): stop waiting, report
// what was seen. Every signal is caught: a second one must not end the process before the report.
const controller = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => controller.abort());

// action.yml runs this file as the main step, and through dist/post.js as the post step.
const post = process.env.NEON_OPERATIONS_WAIT_STEP === 'post';
(post ? runPost : run)(controller.signal).catch((error: unknown) => {
  // Only a bug gets here; keep the message, drop the stack.
  core.setFailed(`Unexpected failure: ${redact(String((error as Error)?.message ?? error))}`);
});
