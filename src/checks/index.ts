import type { Check, StepSettings } from './check.js';
import { type DatabaseSettings, selectOne } from './select-one.js';
import { schemaReview, type SchemaReviewSettings } from './compare-schema.js';
import { urlBelongsToBranch } from './url-belongs-to-branch.js';

/** What the checks are asked: the step's settings and each check's own. */
export type CheckSettings = StepSettings & DatabaseSettings & SchemaReviewSettings;

/**
 * The checks after the wait, in the order the engine runs them: the URL is the branch's before
 * anything connects to it, then `SELECT 1`, then the schema review.
 */
export const CHECKS: readonly Check<CheckSettings>[] = [
  urlBelongsToBranch,
  selectOne,
  schemaReview
];
