import type { Check } from './check.js';
import { selectOne } from './select-one.js';
import { urlBelongsToBranch } from './url-belongs-to-branch.js';

/**
 * The checks after the wait, in the order the engine runs them: the URL is the branch's before
 * anything connects to it, then `SELECT 1`.
 */
export const CHECKS: readonly Check[] = [urlBelongsToBranch, selectOne];
