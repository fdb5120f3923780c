import type { JobMark, ModeContext, WaitKind, WaitMode, WaitSettings } from '../mode.js';
import { JobMode } from './job.js';
import { OperationsMode } from './operations.js';
import { ProjectMode } from './project.js';

/**
 * The mode the settings ask for: the job's operations since a mark (the post step of `watch_job`),
 * operation ids, or else the whole project (or branch).
 */
export function modeFor(ctx: ModeContext): WaitMode {
  switch (kindFor(ctx.settings)) {
    case 'job':
      return new JobMode(ctx, ctx.settings.jobMark as JobMark);
    case 'operations':
      return new OperationsMode(ctx);
    default:
      return new ProjectMode(ctx);
  }
}

/** Which mode the settings ask for, known before the project is (errors report it too). */
export function kindFor(settings: WaitSettings): WaitKind {
  if (settings.jobMark) return 'job';
  return settings.operationIds.length > 0 ? 'operations' : 'project';
}
