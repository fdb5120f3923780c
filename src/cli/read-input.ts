import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { addAbortSignal, type Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { InputError } from '../util/errors.js';

/** Far more than any API response that starts work (the API's own limit for JSON is 32 MiB). */
export const INPUT_LIMIT = 4 * 1024 * 1024;

/**
 * A file whole, or stdin for `-`, without blocking the process: a stdin that never closes or a FIFO
 * with no writer yet ends at `signal` (the deadline or SIGINT/SIGTERM) rather than never, and more
 * than `limit` bytes is an input error. A FIFO is opened without blocking and polled: its end is an
 * end only once a writer has written.
 */
export async function readInput(
  path: string,
  flag: string,
  signal: AbortSignal,
  stdin: Readable,
  limit = INPUT_LIMIT
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  const add = (chunk: Buffer): void => {
    size += chunk.length;
    if (size > limit)
      throw new InputError(`${flag}: ${path === '-' ? 'stdin' : path} holds more than 4 MiB.`);
    chunks.push(chunk);
  };
  if (path === '-') {
    for await (const chunk of addAbortSignal(signal, stdin)) add(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }
  const file = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const fifo = (await file.stat()).isFIFO();
    for (;;) {
      signal.throwIfAborted();
      const buffer = Buffer.alloc(65_536);
      const read = await file
        .read(buffer, 0, buffer.length)
        .catch((error: NodeJS.ErrnoException) => {
          if (error.code === 'EAGAIN') return { bytesRead: -1 };
          throw error;
        });
      if (read.bytesRead > 0) add(buffer.subarray(0, read.bytesRead));
      else if (read.bytesRead === 0 && (!fifo || size)) break;
      else await sleep(50, undefined, { signal });
    }
  } finally {
    await file.close();
  }
  return Buffer.concat(chunks).toString('utf8');
}
