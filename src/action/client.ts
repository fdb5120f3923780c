import { NeonClient } from '../neon/client.js';
import { formatDuration } from '../util/duration.js';
import * as log from './log.js';
import type { Settings } from './settings.js';

/**
 * The API client as both steps use it: requests in the debug log, retries in the log. Throws when
 * a proxy variable holds no URL undici can use (the transport is made here).
 */
export function clientFor(settings: Settings, signal: AbortSignal): NeonClient {
  return new NeonClient({
    baseUrl: settings.apiHost,
    apiKey: settings.apiKey,
    signal,
    onRequest: (path) => log.debug(`GET ${path}`),
    onRetry: (e) =>
      log.info(
        `  retrying in ${formatDuration(e.delayMs)} after ${log.oneLine(e.error)} (attempt ${e.attempt})`
      )
  });
}
