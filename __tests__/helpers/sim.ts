import { randomUUID } from 'node:crypto';
import {
  DEFAULT_KEY,
  operation,
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
 * How long the operations a mutation starts run in a test's simulator (the service's are seconds,
 * the simulator's 2 s by default): a test asserts what the step did, and waits in real time for
 * each; one about timing says how long its operations run.
 */
export const TEST_OPERATION_MS = 300;

/**
 * A fresh simulator for one test. Operation timelines count from the first request it receives, not
 * from its start: a process that starts late (a busy machine) sees the same story.
 */
export async function simulate(
  operations: OperationScript[] | Scenario,
  options: Omit<SimulatorOptions, 'scenario'> = {}
): Promise<Simulator> {
  const scenario = Array.isArray(operations) ? singleProject(PROJECT, operations) : operations;
  return startSimulator({
    scenario,
    startOnFirstRequest: true,
    operationMs: TEST_OPERATION_MS,
    ...options
  });
}

export const uuid = (): string => randomUUID();

/** `count` past operations of the project a minute apart, newest first (`apply_config` every third, one in seven in error). */
export function history(
  count: number,
  fields: Partial<OperationScript> = {},
  error?: string
): OperationScript[] {
  return Array.from({ length: count }, (_, i) =>
    operation(
      PROJECT,
      i % 3 ? 'check_availability' : 'apply_config',
      [
        [-10_000 - i * 60_000, 'running'],
        [-9_000 - i * 60_000, i % 7 === 3 ? 'error' : 'finished', error ? { error } : {}]
      ],
      { branch_id: 'br-main', ...fields }
    )
  );
}

/**
 * A step's inputs for a test that counts the wait's requests (checks 1 s apart, no recent
 * operations in the summary: those are tested elsewhere), and `more` on top.
 */
export const countedInputs = (sim: Simulator, more: Record<string, string>) => ({
  inputs: { api_key: DEFAULT_KEY, api_host: sim.url, interval: '1s', summary_limit: '0', ...more }
});
