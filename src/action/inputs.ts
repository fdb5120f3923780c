import * as core from '@actions/core';
import { readSettings, type Settings, summaryWanted } from '../settings.js';

/** An input as the runner passed it, untrimmed: the settings decide what spaces mean. */
const runnerInput = (name: string): string => core.getInput(name, { trimWhitespace: false });

/** The step's settings from `INPUT_*`; secrets are masked with `::add-mask::`. */
export function readInputs(): Settings {
  return readSettings(runnerInput, core.setSecret);
}

export function summaryInputOn(): boolean {
  return summaryWanted(runnerInput);
}
