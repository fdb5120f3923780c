import { InputError } from '../util/errors.js';

/** How stderr shows the wait: a line redrawn in place, plain lines with a heartbeat, or errors only. */
export type ProgressStyle = 'live' | 'plain' | 'none';
const STYLES = ['auto', 'live', 'plain', 'none'];
export const PROGRESS_ENV = 'NEON_OPERATIONS_WAIT_PROGRESS';

/**
 * Set by a CI system (docs/cli.md cites each one's documentation). CircleCI and Buildkite run steps
 * on a pty, and their logs keep every redraw: there, a terminal gets plain lines too.
 */
const CI_VARIABLES =
  'CI GITLAB_CI CIRCLECI BUILDKITE GITHUB_ACTIONS JENKINS_URL BUILD_ID TF_BUILD TEAMCITY_VERSION';

/** `--progress` (else its variable, else `auto`): `auto` is live on a terminal, unless dumb or CI. */
export function progressStyle(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  isTTY: boolean | undefined
): ProgressStyle {
  const chosen = flag ?? (env[PROGRESS_ENV] || 'auto');
  if (!STYLES.includes(chosen)) {
    const name = flag === undefined ? PROGRESS_ENV : '--progress';
    throw new InputError(
      `${name} must be auto, live, plain or none; got '${chosen.slice(0, 40)}'.`
    );
  }
  if (chosen !== 'auto') return chosen as ProgressStyle;
  const ci = CI_VARIABLES.split(' ').some((name) => env[name] && env[name] !== 'false');
  return isTTY && !ci && env.TERM !== 'dumb' ? 'live' : 'plain';
}
