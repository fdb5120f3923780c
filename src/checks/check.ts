import type { DatabaseTarget } from '../database/url.js';
import type { NeonClient } from '../neon/client.js';
import type { CheckOutcome } from '../report/check-outcome.js';
import type { Naming } from '../util/errors.js';
import type { WaitLog } from '../wait/tracker.js';
import type { WaitResult } from '../wait/wait.js';

/** What the checks are asked (the engine's settings hold these). */
export interface CheckSettings {
  branchId?: string;
  wait: boolean;
  timeoutMs: number;
  /** The parsed `database_url`, probed with `SELECT 1` once the wait succeeded. */
  databaseUrl?: DatabaseTarget;
  /** `database_url: response`: check the request's answer's first connection URI instead. */
  databaseFromResponse?: boolean;
}

/**
 * One check after the wait: it sees the wait's result as the checks before it left it (the engine
 * runs none after one that fails the step), and says what it found, or nothing when it does not
 * apply.
 */
export type Check = (
  waited: WaitResult,
  settings: CheckSettings,
  deps: { client: NeonClient; log: WaitLog; signal?: AbortSignal; named?: Naming }
) => Promise<CheckOutcome | undefined>;
