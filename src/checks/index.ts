import type { Check, StepSettings } from './check.js';
import { type DatabaseSettings, selectOne } from './select-one.js';
import { urlBelongsToBranch } from './url-belongs-to-branch.js';

/** What the checks are asked: the step's settings and each check's own. */
export type CheckSettings = StepSettings & DatabaseSettings;

/**
 * The checks after the wait, in the order the engine runs them: the URL is the branch's before
 * anything connects to it, then `SELECT 1`.
 */
export const CHECKS: readonly Check<CheckSettings>[] = [urlBelongsToBranch, selectOne];
