// action.yml's `post:` step: the same bundle as the main step, told which step it runs. The step
// is known from the entry, not from the runner's state file, which may not be writable.
process.env.NEON_OPERATIONS_WAIT_STEP = 'post';
await import('./index.js');
