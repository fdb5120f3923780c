import * as core from '@actions/core';
import { start } from '../util/entry.js';
import { run } from './main.js';
import { run as runPost } from './post.js';

// action.yml runs this file as the main step, and through dist/post.js as the post step. The runner
// sends SIGINT when the job is cancelled (SIGTERM ~7.5 s later): stop waiting, report what was seen.
start(process.env.NEON_OPERATIONS_WAIT_STEP === 'post' ? runPost : run, core.setFailed);
