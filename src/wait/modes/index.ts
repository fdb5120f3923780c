import type { ModeContext, WaitMode } from '../mode.js';
import { JobMode } from './job.js';
import { OperationsMode } from './operations.js';
import { ProjectMode } from './project.js';

/**
 * The mode the settings ask for: the job's operations since a mark (the post step of `watch_job`),
 * operation ids, or else the whole project (or branch).
 */
export function modeFor(ctx: ModeContext): WaitMode {
  if (ctx.settings.jobMark) return new JobMode(ctx, ctx.settings.jobMark);
  return ctx.settings.operationIds.length > 0 ? new OperationsMode(ctx) : new ProjectMode(ctx);
}
