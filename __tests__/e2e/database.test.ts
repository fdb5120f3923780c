/**
 * `database_url` end to end: the simulator for the control plane, and real PostgreSQL servers on
 * 127.0.0.1 for the database (no mock of either). The action's step runs in-process
 * (`runInProcess`, the same assertions as a spawned run), but once through dist/index.js as the
 * runner runs it, which shows the bundled driver at work; the command runs as dist/cli/.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { operation } from '../../simulator/scenario.js';
import type { Simulator } from '../../simulator/server.js';
import {
  type Cluster,
  createCluster,
  createTestCertificates,
  fakeServer,
  freePort,
  HOST,
  type TestCertificates,
  urlFor,
  wire
} from '../../simulator/postgres.js';
import { unknownArrayAnswer } from '../helpers/probe.js';
import { runInProcess } from '../helpers/in-process-action.js';
import { NODE, ROOT, runAction, workflowCommands } from '../helpers/run-action.js';
import { DEFAULT_KEY, PROJECT, simulate } from '../helpers/sim.js';

const PASSWORD = `E2e:@/?#%-${Math.random().toString(36).slice(2, 10)}`;
const WRONG = `Nope:@-${Math.random().toString(36).slice(2, 10)}`;

let db: Cluster;
let late: Cluster;
let tls: Cluster;
let certs: TestCertificates;
let sim: Simulator | undefined;

beforeAll(async () => {
  certs = await createTestCertificates();
  const clusters = await Promise.allSettled([
    createCluster().then((c) => (db = c)),
    createCluster().then((c) => (late = c)),
    createCluster({
      hba: [
        `host all postgres ${HOST}/32 scram-sha-256`,
        `hostssl all all ${HOST}/32 scram-sha-256`
      ],
      settings: { ssl: 'on', ssl_cert_file: 'server.crt', ssl_key_file: 'server.key' },
      files: { 'server.crt': certs.serverCert, 'server.key': certs.serverKey }
    }).then((c) => (tls = c))
  ]);
  for (const each of clusters) if (each.status === 'rejected') throw each.reason;
  for (const cluster of [db, tls, late]) {
    await cluster.start();
    await cluster.sql(
      `CREATE ROLE app LOGIN PASSWORD '${PASSWORD}'`,
      'CREATE DATABASE appdb OWNER app'
    );
  }
  await late.stop();
}, 60_000);
afterAll(async () => {
  await Promise.all([db?.remove(), late?.remove(), tls?.remove(), certs?.remove()]);
});
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

/**
 * A finished create_branch and start_compute, and the action told to check `url` afterwards: its
 * step in-process, or with `run = runAction` spawned from the bundle.
 */
async function runWith(url: string, more: Record<string, string> = {}, run = runInProcess) {
  const op = operation(PROJECT, 'start_compute', [
    [0, 'running'],
    [300, 'finished']
  ]);
  await sim?.close();
  sim = await simulate([op]);
  return run({
    inputs: {
      api_key: DEFAULT_KEY,
      api_host: sim.url,
      project_id: PROJECT,
      operation_id: op.id,
      summary_limit: '0',
      timeout: '20s',
      database_url: url,
      ...more
    }
  });
}

/** No form of the password in any byte the step wrote; it was asked to be masked. */
function expectNoPassword(run: Awaited<ReturnType<typeof runWith>>, password = PASSWORD): void {
  for (const form of [password, encodeURIComponent(password)])
    expect(run.everything).not.toContain(form);
  expect(run.masked).toContain(password);
}

/** The command (dist/cli/index.js) with `--json`, its environment only `env` (and PATH). */
async function runCommand(url: string, env: Record<string, string>) {
  const op = operation(PROJECT, 'start_compute', [[-1000, 'finished']]);
  await sim?.close();
  sim = await simulate([op]);
  const args = ['--api-host', sim.url, '--project-id', PROJECT, '--operation-id', op.id, '--json'];
  args.push('--database-url-env', 'DB_URL');
  const child = spawn(NODE, [join(ROOT, 'dist/cli/index.js'), ...args, '--timeout', '20s'], {
    env: { PATH: process.env.PATH ?? '', NEON_API_KEY: DEFAULT_KEY, DB_URL: url, ...env }
  });
  child.stdin.end();
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number];
  return { code, stdout, stderr };
}

describe('the command and the database', () => {
  // Heroku-style: the TLS rule in the environment, apart from the URL.
  it("takes libpq's environment: PGSSLMODE=require refuses a server without TLS", async () => {
    const url = urlFor(db, 'app', PASSWORD, 'appdb');
    const flags = { PGSSLMODE: 'require' };
    const run = await runCommand(url, flags);
    const result = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(result).toMatchObject({ status: 'database_error', database_ready: false });
    expect(result.message).toContain(
      'the server does not offer TLS, which sslmode=require asks for'
    );
    expect(run.code).not.toBe(0);
    expect(run.stdout + run.stderr).not.toContain(PASSWORD);
  });

  it('keeps stdout one JSON object whatever the database answers (nothing is parsed)', async () => {
    const server = await fakeServer((socket, write) => {
      write(Buffer.concat([wire.ok(), wire.ready()]));
      socket.once('data', () => write(unknownArrayAnswer(50)));
    });
    try {
      const url = urlFor(
        { host: HOST, port: server.port },
        'app',
        PASSWORD,
        'appdb',
        '?sslmode=disable'
      );
      const run = await runCommand(url, {});
      expect(JSON.parse(run.stdout)).toMatchObject({ status: 'finished', database_ready: true });
      expect(run.code).toBe(0);
    } finally {
      await server.close();
    }
  });
});

describe('database_url', () => {
  it('passes once SELECT 1 answers, and says how long that took (dist/index.js)', async () => {
    const run = await runWith(urlFor(db, 'app', PASSWORD, 'appdb'), {}, runAction);
    expect(run.code).toBe(0);
    expect(run.outputs).toMatchObject({ status: 'finished', database_ready: 'true' });
    expect(run.summary).toMatch(
      new RegExp(
        `Database <code>127\\.0\\.0\\.1&#58;${db.port}/appdb</code> answered \`SELECT 1\` [\\d.]+m?s after`
      )
    );
    expectNoPassword(run);
  });

  it('with watch_job and no ids, leaves the database to the post step, which checks it', async () => {
    sim = await simulate([]);
    const inputs = {
      api_key: DEFAULT_KEY,
      api_host: sim.url,
      project_id: PROJECT,
      summary_limit: '0',
      timeout: '20s',
      watch_job: 'true',
      database_url: urlFor(db, 'app', PASSWORD, 'appdb')
    };
    const main = await runInProcess({ inputs });
    expect(main.outputs).toMatchObject({ status: 'watching', database_ready: '' });
    expect(main.stdout).not.toContain('Connecting to the database');
    const post = await runInProcess({ inputs, state: main.state, step: 'post' });
    expect(post.code).toBe(0);
    expect(post.outputs).toMatchObject({ status: 'idle', database_ready: 'true' });
  });

  it('waits for a server that starts only after the first attempt', async () => {
    // The first attempt is met and dropped; only then does the server start, so the step must
    // retry whenever it got there, however long the runner took to start it.
    let starting: Promise<void> | undefined;
    const first = createServer((socket) => {
      socket.on('error', () => undefined);
      socket.once('data', () => socket.end());
      first.close();
      starting ??= new Promise<void>((resolve) => first.once('close', resolve)).then(() =>
        late.start()
      );
    });
    await new Promise<void>((resolve) => first.listen(late.port, HOST, resolve));
    const run = await runWith(urlFor(late, 'app', PASSWORD, 'appdb'));
    await starting;
    expect(run.outputs.database_ready).toBe('true');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /database attempt 1: (Connection terminated unexpectedly|read ECONNRESET); again in/
    );
    expectNoPassword(run);
  });

  it('fails at once on a wrong password, as database_error, without showing it', async () => {
    const run = await runWith(urlFor(db, 'app', WRONG, 'appdb'));
    expect(run.code).toBe(1);
    expect(run.outputs).toMatchObject({ status: 'database_error', database_ready: 'false' });
    expect(run.durationMs).toBeLessThan(8000);
    const [error] = workflowCommands(run.stdout).filter((l) => l.startsWith('::error'));
    expect(error).toMatch(/password authentication failed/);
    expectNoPassword(run, WRONG);
  });

  it('fails at once on an unknown database', async () => {
    const run = await runWith(urlFor(db, 'app', PASSWORD, 'no_such_db'));
    expect(run.outputs).toMatchObject({ status: 'database_error', database_ready: 'false' });
    expect(run.stdout).toMatch(/no_such_db/);
  });

  it('ends as timeout at the deadline when no server ever answers, naming the host', async () => {
    const port = await freePort();
    const run = await runWith(urlFor({ host: HOST, port }, 'app', PASSWORD, 'appdb'), {
      timeout: '4s'
    });
    expect(run.outputs).toMatchObject({
      status: 'timeout',
      timed_out: 'true',
      database_ready: 'false'
    });
    expect(run.durationMs).toBeLessThan(9000);
    const [error] = workflowCommands(run.stdout).filter((l) => l.startsWith('::error'));
    expect(error).toContain(`127.0.0.1:${port}/appdb`);
    expectNoPassword(run);
  });

  it('connects over TLS as sslmode asks: require encrypts, verify-full checks the certificate', async () => {
    const required = await runWith(urlFor(tls, 'app', PASSWORD, 'appdb', '?sslmode=require'));
    expect(required.outputs.database_ready).toBe('true');
    const verified = await runWith(
      urlFor(
        tls,
        'app',
        PASSWORD,
        'appdb',
        `?sslmode=verify-full&sslrootcert=${encodeURIComponent(certs.caFile)}`
      )
    );
    expect(verified.outputs.database_ready).toBe('true');
    const untrusted = await runWith(
      urlFor(
        tls,
        'app',
        PASSWORD,
        'appdb',
        `?sslmode=verify-full&sslrootcert=${encodeURIComponent(certs.otherCaFile)}`
      )
    );
    expect(untrusted.outputs).toMatchObject({ status: 'database_error', database_ready: 'false' });
    // libpq 16: sslrootcert=system is verify-full against the system's CAs, which never signed this.
    const system = await runWith(urlFor(tls, 'app', PASSWORD, 'appdb', '?sslrootcert=system'));
    expect(system.outputs.status).toBe('database_error');
    expect(system.stdout).toContain('TLS certificate verification failed (sslmode=verify-full)');
    const plain = await runWith(urlFor(tls, 'app', PASSWORD, 'appdb', '?sslmode=disable'));
    expect(plain.outputs.status).toBe('database_error');
  });

  it('sends no password to a server in the middle that asks for it in clear, with channel_binding=require', async () => {
    const mitm = await fakeServer((_socket, write) => write(wire.cleartext()), {
      cert: certs.serverCert,
      key: certs.serverKey
    });
    try {
      const url = urlFor(
        { host: HOST, port: mitm.port },
        'app',
        PASSWORD,
        'appdb',
        '?sslmode=require&channel_binding=require'
      );
      const run = await runWith(url);
      expect(run.code).toBe(1);
      expect(run.outputs).toMatchObject({ status: 'database_error', database_ready: 'false' });
      expect(run.summary).toContain(
        `🐘 Database <code>127.0.0.1&#58;${mitm.port}/appdb</code> did not answer \`SELECT 1\` (1 attempt).`
      );
      const [error] = workflowCommands(run.stdout).filter((l) => l.startsWith('::error'));
      expect(error).toContain(
        'authentication refused: channel_binding=require, and the server asked for a cleartext password'
      );
      expect(mitm.received().toString('latin1')).not.toContain(PASSWORD);
      expectNoPassword(run);
    } finally {
      await mitm.close();
    }
  });

  it('does not report ready when a server in the middle asks again, in clear, after the first SASL message', async () => {
    const mitm = await fakeServer(
      (socket, write) => {
        write(wire.sasl('SCRAM-SHA-256-PLUS', 'SCRAM-SHA-256'));
        // Then, given the password: OK, and an answer to every query.
        socket.once('data', () => {
          write(wire.cleartext());
          socket.once('data', () => {
            write(Buffer.concat([wire.ok(), wire.ready()]));
            socket.on('data', () => write(wire.selectOne()));
          });
        });
      },
      { cert: certs.serverCert, key: certs.serverKey }
    );
    try {
      const query = '?sslmode=require&channel_binding=require';
      const run = await runWith(
        urlFor({ host: HOST, port: mitm.port }, 'app', PASSWORD, 'appdb', query)
      );
      expect(run.code).toBe(1);
      expect(run.outputs).toMatchObject({ status: 'database_error', database_ready: 'false' });
      const [error] = workflowCommands(run.stdout).filter((l) => l.startsWith('::error'));
      expect(error).toContain(
        'authentication refused: channel_binding=require, and the server asked for a cleartext password'
      );
      expect(mitm.received().toString('latin1')).toContain('SCRAM-SHA-256-PLUS');
      expect(mitm.received().toString('latin1')).not.toContain(PASSWORD);
      expectNoPassword(run);
    } finally {
      await mitm.close();
    }
  });

  it('reads a repeated parameter as libpq does, the last one winning', async () => {
    const run = await runWith(
      urlFor(tls, 'app', PASSWORD, 'appdb', '?sslmode=prefer&sslmode=verify-full')
    );
    expect(run.outputs).toMatchObject({ status: 'database_error', database_ready: 'false' });
    expect(run.stdout).toContain('TLS certificate verification failed (sslmode=verify-full)');
  });

  it.each([
    ['?sslrootcert=system&sslmode=require', 'sslrootcert=system with sslmode=require'],
    ['?sslMode=verify-full', "has the parameter 'sslMode', unknown to libpq"]
  ])('refuses %s as an input error, before any request', async (query, said) => {
    const run = await runWith(urlFor(db, 'app', PASSWORD, 'appdb', query));
    expect(run.outputs.status).toBe('input_error');
    expect(sim?.requests).toHaveLength(0);
    const [error] = workflowCommands(run.stdout).filter((l) => l.startsWith('::error'));
    expect(error).toContain("Invalid input 'database_url'");
    expect(error).toContain(said);
    expectNoPassword(run);
  });

  it('refuses a malformed URL as an input error that does not quote the password', async () => {
    const run = await runWith(`postgresql://app:${PASSWORD}@127.0.0.1:notaport/appdb`);
    expect(run.outputs.status).toBe('input_error');
    expect(sim?.requests).toHaveLength(0);
    const [error] = workflowCommands(run.stdout).filter((l) => l.startsWith('::error'));
    expect(error).toMatch(/database_url/);
    expectNoPassword(run);
  });

  it('leaves database_ready empty without database_url', async () => {
    const run = await runWith('');
    expect(run.outputs.database_ready).toBe('');
    expect(run.outputs.status).toBe('finished');
  });
});
