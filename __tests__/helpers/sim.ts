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

/** A fresh simulator for one test: operation timelines count from its start. */
export async function simulate(
  operations: OperationScript[] | Scenario,
  options: Omit<SimulatorOptions, 'scenario'> = {}
): Promise<Simulator> {
  const scenario = Array.isArray(operations) ? singleProject(PROJECT, operations) : operations;
  return startSimulator({ scenario, ...options });
}

export const uuid = (): string => randomUUID();
