import { accessSync, closeSync, constants, existsSync, fstatSync, mkdirSync } from 'node:fs';
import { openSync, statSync, writeFileSync } from 'node:fs';
import { Socket } from 'node:net';
import { dirname } from 'node:path';
import { addAbortSignal } from 'node:stream';
import { finished } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { InputError } from '../util/errors.js';

/** Before any request: the file's folders are made, and a path that cannot be written is an input error. */
export function prepareReportFile(path: string, flag: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    if (statSync(path, { throwIfNoEntry: false })?.isDirectory()) throw new Error('it is a folder');
    accessSync(existsSync(path) ? path : dirname(path), constants.W_OK);
  } catch (error) {
    throw new InputError(`${flag}: ${path} cannot be written: ${(error as Error).message}`);
  }
}

/**
 * Writes a report file without blocking the process, so that `stop` (a signal) still ends it: a
 * FIFO is opened without blocking, tried again while it has no reader (`onWait` says so once), and
 * written through the event loop.
 */
export async function writeReport(
  path: string,
  text: string,
  stop: AbortSignal,
  onWait: () => void
) {
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NONBLOCK;
  for (let tries = 0; ; tries++) {
    let fd: number;
    try {
      fd = openSync(path, flags, 0o666);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENXIO') throw error; // ENXIO: no reader yet
      if (!tries) onWait();
      await sleep(100, undefined, { signal: stop });
      continue;
    }
    if (fstatSync(fd).isFIFO())
      return finished(
        addAbortSignal(stop, new Socket({ fd, readable: false, writable: true })).end(text)
      );
    closeSync(fd);
    return writeFileSync(path, text);
  }
}
