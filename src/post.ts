// The post step's logic as an entry of its own that exports `run`, as @github/local-action's
// `--post` expects (`npm run local`). The runner reaches the same function through dist/post.js.
export { runPost as run } from './main.js';
