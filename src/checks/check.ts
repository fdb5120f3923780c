import type { NeonClient } from '../neon/client.js';
import type { CheckOutcome } from '../report/check-outcome.js';
import type { Naming } from '../util/errors.js';
import type { WaitLog } from '../wait/tracker.js';
import type { WaitResult } from '../wait/wait.js';
import type { WaitSettings } from '../wait/wait-settings.js';

/** What every check is asked; a check adds its own settings (`S`), which `CheckSettings` gathers. */
export type StepSettings = Pick<WaitSettings, 'branchId' | 'wait' | 'timeoutMs'>;

/**
 * One check after the wait: it sees the wait's result as the checks before it left it (the engine
 * runs none after one that fails the step), and says what it found, or nothing when it does not
 * apply.
 */
export type Check<S = object> = (
  waited: WaitResult,
  settings: StepSettings & S,
  deps: { client: NeonClient; log: WaitLog; signal?: AbortSignal; named?: Naming }
) => Promise<CheckOutcome | undefined>;
