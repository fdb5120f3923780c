import { saveJobMark } from './action/job-state.js';
import * as log from './action/log.js';
import { publish } from './action/publish.js';
import { readInputs, summaryInputOn } from './action/inputs.js';
import { runEngine } from './engine.js';
import type { Settings } from './settings.js';
import { inputErrorReport } from './report/model.js';
import { InputError } from './util/errors.js';

/** The whole step: settings → engine → publish (summary, comment, outputs, result). */
export async function run(signal: AbortSignal = new AbortController().signal): Promise<void> {
  const startedAt = Date.now();
  let settings: Settings;
  try {
    settings = readInputs();
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    // No request is sent; the outputs are still set.
    await publish(
      { summary: summaryInputOn() },
      inputErrorReport(error.message, startedAt, Date.now())
    );
    return;
  }
  const report = await runEngine(settings, { log, signal, onJobMark: saveJobMark });
  await publish(settings, report, signal);
}
