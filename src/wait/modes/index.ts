import type { ModeContext, WaitMode } from '../mode.js';
import { OperationsMode } from './operations.js';
import { ProjectMode } from './project.js';

/** The mode the settings ask for: operation ids given, or else the whole project (or branch). */
export function modeFor(ctx: ModeContext): WaitMode {
  return ctx.settings.operationIds.length > 0 ? new OperationsMode(ctx) : new ProjectMode(ctx);
}
