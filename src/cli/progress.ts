import { InputError } from '../util/errors.js';

/** How stderr shows the wait: a line redrawn in place, plain lines with a heartbeat, or errors only. */
export type ProgressStyle = 'live' | 'plain' | 'none';
export const PROGRESS_ENV = 'NEON_OPERATIONS_WAIT_PROGRESS';
/** Set by CI systems (docs/cli.md cites their docs); CircleCI and Buildkite run steps on a pty. */
const CI =
  /^(CI|GITLAB_CI|CIRCLECI|BUILDKITE|GITHUB_ACTIONS|JENKINS_URL|BUILD_ID|TF_BUILD|TEAMCITY_VERSION)$/;

/** `--quiet`, else `--progress`, else its variable, else auto: live on a terminal, unless dumb or CI. */
export function progressStyle(
  { quiet, progress }: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  isTTY?: boolean
): ProgressStyle {
  const chosen = quiet ? 'none' : String(progress ?? (env[PROGRESS_ENV] || 'auto'));
  if (!/^(auto|live|plain|none)$/.test(chosen)) {
    const name = progress === undefined ? PROGRESS_ENV : '--progress';
    throw new InputError(
      `${name} must be auto, live, plain or none; got '${chosen.slice(0, 40)}'.`
    );
  }
  const ci = Object.entries(env).some(
    ([name, value]) => CI.test(name) && value && value !== 'false'
  );
  if (chosen !== 'auto') return chosen as ProgressStyle;
  return isTTY && !ci && env.TERM !== 'dumb' ? 'live' : 'plain';
}
