import { randomUUID } from 'node:crypto';
import {
  DEFAULT_KEY,
  type OperationScript,
  type Scenario,
  singleProject
} from '../../simulator/scenario.js';
import { type Simulator, type SimulatorOptions, startSimulator } from '../../simulator/server.js';

export const PROJECT = 'misty-field-123456';
export { DEFAULT_KEY };

/** The action's inputs for the test project on `sim` (checks 1 s apart), and `more` on top. */
export const projectInputs = (sim: Simulator, more: Record<string, string> = {}) => ({
  api_key: DEFAULT_KEY,
  api_host: sim.url,
  project_id: PROJECT,
  interval: '1s',
  ...more
});

/**
 * A fresh simulator for one test. Operation timelines count from the first request it receives, not
 * from its start: a process that starts late (a busy machine) sees the same story.
 */
export async function simulate(
  operations: OperationScript[] | Scenario,
  options: Omit<SimulatorOptions, 'scenario'> = {}
): Promise<Simulator> {
  const scenario = Array.isArray(operations) ? singleProject(PROJECT, operations) : operations;
  return startSimulator({ scenario, startOnFirstRequest: true, ...options });
}

export const uuid = (): string => randomUUID();
