import { createTransport } from '../../src/neon/transport.js';
import { NeonClient, type RetryEvent } from '../../src/neon/client.js';
import { readSettings, type Settings } from '../../src/settings.js';
import type { JobMark } from '../../src/wait/job-mark.js';

import type { WaitResult } from '../../src/wait/wait.js';
import { performAndWait } from '../../src/requests/index.js';
import {
  DEFAULT_KEY,
  type OperationScript,
  type Scenario,
  singleProject
} from '../../simulator/scenario.js';
import { prng } from '../../simulator/simulated-wait.js';
import { type Simulator, type SimulatorOptions, startSimulator } from '../../simulator/server.js';
import { VirtualTime } from '../../simulator/virtual-time.js';
import { actionDefaults } from './run-action.js';
import { PROJECT } from './sim.js';

/**
 * The action's wait in this process, wired as the engine wires it (settings read from the action's
 * inputs by name, `performAndWait`, `NeonClient` over undici, real HTTP to the simulator on 127.0.0.1), on
 * simulated time shared with the simulator (`VirtualTime`): backoff, throttling and deadlines cost
 * no real time, and the decisions come out the same on any machine. The end-to-end tests keep one
 * spawned run of `dist/` per kind of behaviour; the decisions are tested here.
 */
export interface Waited {
  result: WaitResult;
  retries: RetryEvent[];
  /** What the wait told the job log (info and warnings). */
  log: string[];
  /** Requests this wait sent, retries included. */
  requests: number;
  /** With `watch_job`: the mark the main step would keep for the post step. */
  jobMark?: JobMark;
}

export const EPOCH = Date.UTC(2026, 0, 1);

export class InProcess {
  /** Where a sweep reads pull requests (the GitHub stand-in's URL); reached on simulated time. */
  githubUrl?: string;

  private constructor(
    readonly sim: Simulator,
    readonly time: VirtualTime
  ) {}

  /** A simulator on simulated time; `dispose()` gives the global timers back. */
  static async start(
    operations: OperationScript[] | Scenario,
    options: Omit<SimulatorOptions, 'scenario' | 'clock' | 'epoch'> = {}
  ): Promise<InProcess> {
    const time = new VirtualTime(EPOCH);
    try {
      const scenario = Array.isArray(operations) ? singleProject(PROJECT, operations) : operations;
      const sim = await startSimulator({
        ...options,
        scenario,
        clock: () => time.elapsed(),
        epoch: EPOCH
      });
      return new InProcess(sim, time);
    } catch (error) {
      time.dispose();
      throw error;
    }
  }

  /**
   * One wait with these inputs (`api_key` and `api_host` filled in), run to its end; `event` is
   * what a front end read of the run's event (the pull request).
   */
  async wait(
    inputs: Record<string, string>,
    seed = 1,
    event: Parameters<typeof readSettings>[2] = {}
  ): Promise<Waited> {
    const [waited] = await this.time.run([this.start(inputs, seed, {}, event)], 6 * 3_600_000);
    return waited as Waited;
  }

  /** Several waits at once, each its own job (own client, own random); all run to their end. */
  async waitAll(jobs: Array<Record<string, string>>, seed = 1): Promise<Waited[]> {
    const results = await this.time.run(
      jobs.map((inputs, i) => this.start(inputs, seed + i)),
      6 * 3_600_000
    );
    return results as Waited[];
  }

  /** The post step of `watch_job` from this mark, with the settings `src/action/post.ts` gives it. */
  async post(mark: JobMark, inputs: Record<string, string>, seed = 1): Promise<Waited> {
    const post: Partial<Settings> = {
      projectId: mark.projectId,
      operationIds: [],
      givenOperations: [],
      jobMark: mark,
      watchJob: false,
      summaryLimit: 0
    };
    const [waited] = await this.time.run([this.start(inputs, seed, post)], 6 * 3_600_000);
    return waited as Waited;
  }

  async dispose(): Promise<void> {
    await this.sim.close();
    this.time.dispose();
  }

  private async start(
    inputs: Record<string, string>,
    seed: number,
    overrides: Partial<Settings> = {},
    event: Parameters<typeof readSettings>[2] = {}
  ): Promise<Waited> {
    const all: Record<string, string> = {
      ...actionDefaults(),
      api_key: DEFAULT_KEY,
      api_host: this.sim.url,
      ...inputs
    };
    const settings = {
      ...readSettings(
        (name) => all[name] ?? '',
        () => undefined,
        event
      ),
      ...overrides
    };
    const random = prng(seed);
    const log: string[] = [];
    const retries: RetryEvent[] = [];
    let jobMark: JobMark | undefined;
    const transport = this.time.transport(createTransport());
    const client = new NeonClient({
      baseUrl: settings.apiHost,
      apiKey: settings.apiKey,
      clock: this.time.clock,
      random,
      transport,
      onRetry: (event) => retries.push(event)
    });
    try {
      const result = await performAndWait(settings, {
        client,
        clock: this.time.clock,
        random,
        onJobMark: (mark) => (jobMark = mark),
        ...(this.githubUrl && { github: { baseUrl: this.githubUrl, fetch: this.time.fetch } }),
        log: { info: (m) => log.push(m), warning: (m) => log.push(`warning: ${m}`) }
      });
      return { result, retries, log, requests: client.requests, jobMark };
    } finally {
      await transport.close();
    }
  }
}
