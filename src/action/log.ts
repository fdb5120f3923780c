import * as core from '@actions/core';
import { defuse, neutralize, truncate } from '../util/text.js';

// The job log through `@actions/core`, made safe for text from the API (see `util/text.ts`).

/** Annotation text, bounded: the log keeps the whole story, an annotation only points to it. */
const bounded = (message: string): string => truncate(defuse(message), 4000);

export const info = (message: string): void => core.info(neutralize(message));
export const notice = (message: string): void => core.notice(bounded(message));
export const warning = (message: string, title?: string): void =>
  core.warning(bounded(message), title ? { title } : {});

export function debug(message: string): void {
  if (core.isDebug()) core.debug(bounded(message));
}

/** Marks the step failed, with an error annotation. */
export const fail = (message: string): void => core.setFailed(bounded(message));
