/**
 * The API's OperationStatus enum, in the OpenAPI document's order (a test compares them), and what
 * each means to the service: in progress, or final. `failed` is in progress: the control plane may
 * retry it (`failures_count`, `retry_at`). What a status means for the step is the wait's call
 * (`wait/status.ts`).
 */
export const API_STATUSES = [
  'scheduling',
  'running',
  'finished',
  'failed',
  'error',
  'cancelling',
  'cancelled',
  'skipped'
] as const;

export type ApiStatus = (typeof API_STATUSES)[number];

type Phase = 'in progress' | 'final';

const PHASE_OF_STATUS: Record<ApiStatus, Phase> = {
  scheduling: 'in progress',
  running: 'in progress',
  finished: 'final',
  failed: 'in progress',
  error: 'final',
  cancelling: 'in progress',
  cancelled: 'final',
  skipped: 'final'
};

// A Map, not the object: a status such as `__proto__` must find nothing.
const PHASES: ReadonlyMap<string, Phase> = new Map(Object.entries(PHASE_OF_STATUS));

/** One of the API's OperationStatus enum (any other string is unknown: treated as in progress). */
export const isKnownStatus = (status: string): boolean => PHASES.has(status);

/** In progress as far as the project is concerned: a known status not final, or an unknown one. */
export const isInProgress = (status: string): boolean =>
  (PHASES.get(status) ?? 'in progress') === 'in progress';
