import type { ModeWords } from '../mode.js';
import { projectMode } from './project.js';

/**
 * `endpoint_id`: until no operation of that compute is in progress. It is the project mode
 * following a smaller place: `inScope` keeps the operations whose `endpoint_id` is the compute's,
 * and the scope (`compute ep-… of project p`) names it in the log and the messages.
 */
export const endpointMode = projectMode;

export const endpointWords: ModeWords = {
  subject: 'compute activity',
  heading: 'Operations of the compute seen in progress',
  section: 'Seen in progress',
  counted: 'seen in progress',
  none: 'No operation of the compute was in progress.',
  awaitsPlace: true
};
