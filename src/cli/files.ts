// The files the command reads and writes, never blocking the process: a stdin that never closes, a
// FIFO without a writer or a reader, ends at the deadline or a signal.
import { accessSync, closeSync, constants, existsSync, fstatSync, mkdirSync } from 'node:fs';
import { openSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { Socket } from 'node:net';
import { dirname } from 'node:path';
import { addAbortSignal, type Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { CancelledError, InputError } from '../util/errors.js';

/**
 * The file `name` names, or stdin for `-`: at most 4 MiB, not empty (a failed `curl … |` must not
 * become a wait for an idle project). A FIFO is polled; its end counts once a writer wrote.
 */
export async function readInput(
  name: string,
  path: string,
  { signal, timeoutMs, stdin }: { signal: AbortSignal; timeoutMs: number; stdin: Readable }
): Promise<string> {
  const where = path === '-' ? 'stdin' : path;
  const wrong = (why: string) => new InputError(name, (named) => `${named(name)}: ${where} ${why}`);
  const reading = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
  const chunks: Buffer[] = [];
  let size = 0;
  const add = (chunk: Buffer): void => {
    if ((size += chunk.length) > 4 * 1024 * 1024) throw wrong('holds more than 4 MiB.');
    chunks.push(chunk);
  };
  try {
    if (path === '-')
      for await (const chunk of addAbortSignal(reading, stdin)) add(chunk as Buffer);
    else {
      await using file = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
      const fifo = (await file.stat()).isFIFO();
      for (;;) {
        // A new buffer each time (`add` keeps it); EAGAIN: a writer, nothing written yet.
        const read = await file.read().catch((error: NodeJS.ErrnoException) => {
          if (error.code === 'EAGAIN') return { bytesRead: -1, buffer: Buffer.of() };
          throw error;
        });
        if (read.bytesRead > 0) add(read.buffer.subarray(0, read.bytesRead));
        else if (read.bytesRead === 0 && (!fifo || size)) break;
        else await sleep(50, undefined, { signal: reading });
      }
    }
  } catch (error) {
    if (signal.aborted) throw new CancelledError();
    if (error instanceof InputError) throw error;
    const why = reading.aborted ? 'nothing came before the --timeout' : (error as Error).message;
    throw wrong(`could not be read: ${why}`);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text.trim()) throw wrong('is empty.');
  return text;
}

/** Before any request: the file's folders are made, and a path that cannot be written is an input error. */
export function prepareReportFile(path: string, name: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    if (statSync(path, { throwIfNoEntry: false })?.isDirectory()) throw new Error('it is a folder');
    accessSync(existsSync(path) ? path : dirname(path), constants.W_OK);
  } catch (error) {
    const why = `${path} cannot be written: ${(error as Error).message}`;
    throw new InputError(name, (named) => `${named(name)}: ${why}`);
  }
}

/**
 * A report file, until `stop`: a FIFO is retried until it has a reader (`note` once). `append`
 * keeps what the file held (the job summary file other steps wrote to).
 */
export async function writeReport(
  path: string,
  text: string,
  { stop, note, append }: { stop: AbortSignal; note: () => void; append: boolean }
) {
  const own = ownSocket(path);
  if (own !== undefined) return writeAll(own, text, stop);
  const mode = append ? constants.O_APPEND : constants.O_TRUNC;
  const flags = constants.O_WRONLY | constants.O_CREAT | mode | constants.O_NONBLOCK;
  let fd: number | undefined;
  for (let tries = 0; fd === undefined; tries++)
    try {
      fd = openSync(path, flags, 0o666);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENXIO') throw error; // ENXIO: no reader yet
      if (!tries) note();
      await sleep(100, undefined, { signal: stop });
    }
  if (fstatSync(fd).isFIFO())
    return finished(
      addAbortSignal(stop, new Socket({ fd, readable: false, writable: true })).end(text)
    );
  try {
    writeFileSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/**
 * Our own stdout or stderr, when `path` names it (`/dev/stdout`, `/proc/self/fd/2`) and it is a
 * socket: a Node parent's `stdio: 'pipe'` is a socket pair, and a socket cannot be opened by its
 * path (ENXIO, which a FIFO answers while it has no reader): it is written through our descriptor.
 */
function ownSocket(path: string): number | undefined {
  const target = statSync(path, { throwIfNoEntry: false });
  if (!target?.isSocket()) return undefined;
  return [1, 2].find((fd) => {
    const held = fstatSync(fd, { throwIfNoEntry: false });
    return held?.dev === target.dev && held.ino === target.ino;
  });
}

/** All of `text` to a descriptor we hold, waiting while it is full (EAGAIN), until `stop`. */
async function writeAll(fd: number, text: string, stop: AbortSignal): Promise<void> {
  let rest = Buffer.from(text);
  while (rest.length > 0)
    try {
      rest = rest.subarray(writeSync(fd, rest));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      await sleep(10, undefined, { signal: stop });
    }
}
