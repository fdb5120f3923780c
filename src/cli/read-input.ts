import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { addAbortSignal, type Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { InputError } from '../util/errors.js';

/**
 * A file, or stdin for `-`, whole but at most 4 MiB (far more than a response that starts work),
 * never blocking the process: a stdin that never closes or a FIFO that no one writes ends at
 * `signal`. A FIFO is opened without blocking and polled: its end counts once a writer wrote.
 */
export async function readInput(path: string, flag: string, signal: AbortSignal, stdin: Readable) {
  const chunks: Buffer[] = [];
  let size = 0;
  const add = (chunk: Buffer): void => {
    if ((size += chunk.length) > 4 * 1024 * 1024)
      throw new InputError(`${flag}: ${path === '-' ? 'stdin' : path} holds more than 4 MiB.`);
    chunks.push(chunk);
  };
  if (path === '-') for await (const chunk of addAbortSignal(signal, stdin)) add(chunk as Buffer);
  else {
    const file = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const fifo = (await file.stat()).isFIFO();
      for (let buffer = Buffer.alloc(65_536); ; buffer = Buffer.alloc(65_536)) {
        const read = await file.read(buffer).catch((error: NodeJS.ErrnoException) => {
          if (error.code === 'EAGAIN') return { bytesRead: -1 }; // a writer, nothing written yet
          throw error;
        });
        if (read.bytesRead > 0) add(buffer.subarray(0, read.bytesRead));
        else if (read.bytesRead === 0 && (!fifo || size)) break;
        else await sleep(50, undefined, { signal });
      }
    } finally {
      await file.close();
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}
