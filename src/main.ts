import { saveJobMark, saveMainVerdict } from './action/job-state.js';
import * as log from './action/log.js';
import { publish } from './action/publish.js';
import { readInputs, summaryInputOn } from './action/inputs.js';
import { type EngineDeps, type EngineSettings, runEngine } from './engine.js';
import type { Settings } from './settings.js';
import { inputErrorReport, type Report } from './report/model.js';
import { InputError } from './util/errors.js';

/** How a step of the action adapts the shared run: the post step watches the job, not the inputs. */
export interface StepShape {
  settings?: (settings: Settings) => EngineSettings;
  report?: (report: Report) => Report;
  onJobMark?: EngineDeps['onJobMark'];
}

/**
 * One step, main or post: inputs → engine → publish (summary, comment, outputs, result). Every
 * way it ends is reported the same way in both steps, an input error included (no request sent).
 */
export async function runStep(signal: AbortSignal, shape: StepShape = {}): Promise<Report> {
  const startedAt = Date.now();
  const shown = shape.report ?? ((report: Report) => report);
  let settings: Settings;
  try {
    settings = readInputs();
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    const report = shown(inputErrorReport(error.message, startedAt, Date.now()));
    await publish({ summary: summaryInputOn() }, report);
    return report;
  }
  const engineSettings = shape.settings?.(settings) ?? settings;
  const deps = { log, signal, onJobMark: shape.onJobMark };
  const report = shown(await runEngine(engineSettings, deps));
  await publish(settings, report, signal);
  return report;
}

/** The main step; with `watch_job` it leaves the mark and its verdict for the post step. */
export async function run(signal: AbortSignal = new AbortController().signal): Promise<void> {
  saveMainVerdict(await runStep(signal, { onJobMark: saveJobMark }));
}
