/**
 * The probe against real PostgreSQL servers on 127.0.0.1, without TLS (see tls.test.ts for TLS):
 * one server that runs throughout, and one that starts late, then comes back as a standby that
 * answers "not accepting connections" (57P03) until it is promoted.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server, type Socket } from 'node:net';
import pg from 'pg';
import { retryDelay } from '../../src/database/probe.js';
import { DatabaseUrlError } from '../../src/util/errors.js';
import { type Cluster, createCluster, freePort, HOST, urlFor } from '../../simulator/postgres.js';
import { expectNoSecret, failure, runProbe } from '../helpers/probe.js';

// Characters that must be percent-encoded in a URL, so that every form of it is checked.
const PASSWORD = `Pw:@/?#%& ü-${Math.random().toString(36).slice(2, 10)}`;
const WRONG = `Wrong:@/?#%-${Math.random().toString(36).slice(2, 10)}`;

let main: Cluster;
let late: Cluster;

beforeAll(async () => {
  // Both initdb at once; each cluster is kept as soon as it exists, so afterAll removes it even
  // when the other failed.
  const created = await Promise.allSettled([
    createCluster({
      // 'ghost' is trusted, so that an unknown role gets "role does not exist" (28000) rather
      // than the password failure that SCRAM gives any unknown user.
      hba: [`host all ghost ${HOST}/32 trust`, `host all all ${HOST}/32 scram-sha-256`],
      // Three slots for ordinary roles (three more stay reserved for superusers).
      settings: { max_connections: 6 }
    }).then((cluster) => (main = cluster)),
    createCluster().then((cluster) => (late = cluster))
  ]);
  for (const each of created) if (each.status === 'rejected') throw each.reason;
  await main.start();
  await main.sql(`CREATE ROLE app LOGIN PASSWORD '${PASSWORD}'`, 'CREATE DATABASE appdb OWNER app');
}, 30_000);

afterAll(async () => {
  await Promise.all([main?.remove(), late?.remove()]);
});

const appUrl = (query = ''): string => urlFor(main, 'app', PASSWORD, 'appdb', query);

describe('retryDelay', () => {
  it('starts at 250 ms, doubles to 2 s, with ±20% jitter', () => {
    expect([1, 2, 3, 4, 5, 50].map((attempt) => retryDelay(attempt, () => 0.5))).toEqual([
      250, 500, 1000, 2000, 2000, 2000
    ]);
    expect(retryDelay(1, () => 0)).toBe(200);
    expect(retryDelay(9, () => 1)).toBe(2400);
  });
});

describe('probeDatabase against a running server', () => {
  it('is ready at once (sslmode absent: prefer, and the server has no TLS)', async () => {
    const run = await runProbe(appUrl(), 10_000);
    expect(run.result).toEqual({ ready: true, attempts: 1, elapsedMs: expect.any(Number) });
    expect(run.attempts).toEqual([{ attempt: 1 }]);
    // Ended at once: no wait between attempts, and no hanging until the deadline (half of it
    // leaves room for a busy machine).
    expect(run.sleptMs).toBe(0);
    expect(run.wallMs).toBeLessThan(5000);
    expectNoSecret(run, appUrl(), PASSWORD);
  });

  it('is ready with sslmode=disable', async () => {
    const run = await runProbe(appUrl('?sslmode=disable'), 10_000);
    expect(run.result.ready).toBe(true);
  });

  it('fails at once on a wrong password, naming host, port, database and user', async () => {
    const url = urlFor(main, 'app', WRONG, 'appdb');
    const run = await runProbe(url, 10_000);
    const result = failure(run);
    expect(result.reason).toBe('rejected');
    expect(result.attempts).toBe(1);
    expect(result.message).toBe(
      `Cannot connect to the database ${HOST}:${main.port}/appdb: ` +
        'password authentication failed for user "app" (SQLSTATE 28P01)'
    );
    // Ended at once: no wait between attempts, and no hanging until the deadline (half of it
    // leaves room for a busy machine).
    expect(run.sleptMs).toBe(0);
    expect(run.wallMs).toBeLessThan(5000);
    expectNoSecret(run, url, WRONG);
    expectNoSecret(run, url, PASSWORD);
  });

  it('scrubs the password even from a server message that quotes it', async () => {
    // A user name equal to the password: the server's own message then holds the secret.
    const same = `Same-${PASSWORD}`;
    const url = urlFor(main, same, same, 'appdb');
    const run = await runProbe(url, 10_000);
    expect(failure(run).message).toContain('password authentication failed for user "***"');
    expectNoSecret(run, url, same);
  });

  it('fails at once on an unknown database', async () => {
    const url = urlFor(main, 'app', PASSWORD, 'nope');
    const run = await runProbe(url, 10_000);
    const result = failure(run);
    expect(result).toMatchObject({ reason: 'rejected', attempts: 1 });
    expect(result.message).toContain(`${HOST}:${main.port}/nope`);
    expect(result.message).toContain('database "nope" does not exist (SQLSTATE 3D000)');
    expectNoSecret(run, url, PASSWORD);
  });

  it('fails at once on an unknown role', async () => {
    const url = urlFor(main, 'ghost', PASSWORD, 'appdb');
    const run = await runProbe(url, 10_000);
    const result = failure(run);
    expect(result).toMatchObject({ reason: 'rejected', attempts: 1 });
    expect(result.message).toContain('role "ghost" does not exist (SQLSTATE 28000)');
    expectNoSecret(run, url, PASSWORD);
  });

  it('fails at once when sslmode=require and the server has no TLS', async () => {
    const run = await runProbe(appUrl('?sslmode=require'), 10_000);
    const result = failure(run);
    expect(result).toMatchObject({ reason: 'rejected', attempts: 1 });
    expect(result.message).toContain(
      'the server does not offer TLS, which sslmode=require asks for'
    );
  });

  it('fails at once when channel_binding=require and the server has no TLS', async () => {
    const run = await runProbe(appUrl('?channel_binding=require'), 10_000);
    const result = failure(run);
    expect(result).toMatchObject({ reason: 'rejected', attempts: 1 });
    expect(result.message).toContain('does not offer TLS, which channel_binding=require asks for');
  });

  it.each([
    [{ PGSSLMODE: 'require' }, 'the server does not offer TLS, which sslmode=require asks for'],
    [{ PGSSLMODE: 'verify-full' }, 'the server does not offer TLS, which sslmode=verify-full'],
    [{ PGCHANNELBINDING: 'require' }, 'does not offer TLS, which channel_binding=require asks'],
    [{ PGREQUIREAUTH: 'password' }, 'require_auth=password, and the server offered SCRAM']
  ])("takes libpq's environment for what the URL leaves out: %j", async (env, text) => {
    const run = await runProbe(appUrl(), 10_000, { env });
    const result = failure(run);
    expect(result).toMatchObject({ reason: 'rejected', attempts: 1 });
    expect(result.message).toContain(text);
    expectNoSecret(run, appUrl(), PASSWORD);
  });

  it("lets the URL's parameter win over libpq's environment, as libpq does", async () => {
    const run = await runProbe(appUrl('?sslmode=prefer'), 10_000, {
      env: { PGSSLMODE: 'require' }
    });
    expect(run.result.ready).toBe(true);
  });

  it('retries "too many clients" (53300) until a slot frees', async () => {
    const held = await Promise.all(
      [1, 2, 3].map(async () => {
        const client = new pg.Client({ connectionString: appUrl(), ssl: false });
        await client.connect();
        return client;
      })
    );
    const release = sleep(1500).then(() => Promise.all(held.map((client) => client.end())));
    try {
      const run = await runProbe(appUrl(), 10_000);
      expect(run.result.ready).toBe(true);
      expect(run.result.attempts).toBeGreaterThan(1);
      expect(run.attempts[0]?.error).toMatch(/connection slots are reserved.*SQLSTATE 53300/);
      expectNoSecret(run, appUrl(), PASSWORD);
    } finally {
      await release;
    }
  });
});

describe('probeDatabase against no server', () => {
  it('ends as timeout at the deadline, naming the host and not the password', async () => {
    const port = await freePort();
    const url = urlFor({ host: HOST, port }, 'app', PASSWORD, 'appdb');
    const run = await runProbe(url, 2500);
    const result = failure(run);
    expect(result.reason).toBe('timeout');
    expect(result.attempts).toBeGreaterThanOrEqual(4);
    expect(run.wallMs).toBeGreaterThanOrEqual(2400);
    expect(run.wallMs).toBeLessThan(3500);
    expect(result.message).toMatch(
      new RegExp(
        `^The database ${HOST}:${port}/appdb did not answer within 2\\.\\ds \\(\\d+ attempts; ` +
          `last error: connect ECONNREFUSED ${HOST}:${port}\\)\\.$`
      )
    );
    // Short delays first, never past the deadline, the last attempt kept before it.
    const delays = run.attempts.map((attempt) => attempt.delayMs ?? 0);
    expect(delays[0]).toBeGreaterThanOrEqual(200);
    expect(delays[0]).toBeLessThanOrEqual(300);
    expect(Math.max(...delays)).toBeLessThanOrEqual(2400);
    expectNoSecret(run, url, PASSWORD);
  });

  it('bounds an attempt that hangs by the time left, and closes its socket', async () => {
    const silent = await silentServer();
    try {
      const url = urlFor({ host: HOST, port: silent.port }, 'app', PASSWORD, 'appdb');
      const run = await runProbe(url, 2000);
      const result = failure(run);
      expect(result.reason).toBe('timeout');
      expect(result.attempts).toBe(1);
      expect(run.wallMs).toBeGreaterThanOrEqual(1900);
      expect(run.wallMs).toBeLessThan(3000);
      expect(result.message).toMatch(/\(1 attempt; last error: no answer within (1\.9|2)s\)\.$/);
      await sleep(100);
      expect(silent.accepted).toBe(1);
      expect(silent.open()).toBe(0);
    } finally {
      await silent.close();
    }
  });

  it('stops when cancelled', async () => {
    const port = await freePort();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 600);
    const run = await runProbe(urlFor({ host: HOST, port }, 'a', PASSWORD, 'd'), 10_000, {
      signal: controller.signal
    });
    expect(failure(run).reason).toBe('cancelled');
    // Long before the 10 s deadline (half of it leaves room for a busy machine).
    expect(run.wallMs).toBeLessThan(5000);
  });

  it('makes no attempt when the deadline has passed', async () => {
    const run = await runProbe(appUrl(), -1);
    expect(failure(run)).toMatchObject({ reason: 'timeout', attempts: 0 });
  });

  it('throws DatabaseUrlError on a malformed URL', async () => {
    await expect(runProbe(`postgresql://app:${PASSWORD}@${HOST}:0/appdb`, 1000)).rejects.toThrow(
      DatabaseUrlError
    );
  });
});

describe('probeDatabase against a server that is not ready yet', () => {
  it('waits for a server that starts 2 s after the probe began', async () => {
    const url = urlFor(late, late.superuser.user, late.superuser.password, 'postgres');
    const starting = sleep(2000).then(() => late.start());
    // Waited for even when the probe throws, so that afterAll never races the start.
    const run = await runProbe(url, 15_000).finally(() => starting);
    expect(run.result.ready).toBe(true);
    expect(run.result.attempts).toBeGreaterThan(2);
    expect(run.result.elapsedMs).toBeGreaterThanOrEqual(2000);
    expect(run.attempts[0]?.error).toContain('ECONNREFUSED');
    expect(run.attempts.at(-1)).toEqual({ attempt: run.result.attempts });
    expectNoSecret(run, url, late.superuser.password);
  });

  it('retries "not accepting connections" (57P03) until the standby is promoted', async () => {
    await late.stop();
    await import('node:fs/promises').then((fs) =>
      fs.writeFile(`${late.dataDir}/standby.signal`, '')
    );
    await late.start({ hot_standby: 'off' }, /entering standby mode/);
    const url = urlFor(late, late.superuser.user, late.superuser.password, 'postgres');
    const promoting = sleep(1500).then(() => late.promote());
    const run = await runProbe(url, 15_000).finally(() => promoting);
    expect(run.result.ready).toBe(true);
    // "starting up" until the standby reaches a consistent state, then "not accepting connections".
    expect(run.attempts[0]?.error).toMatch(
      /^the database system is (starting up|not accepting connections) \(SQLSTATE 57P03\)$/
    );
    expect(run.result.elapsedMs).toBeGreaterThanOrEqual(1500);
  });
});

/** A TCP server that accepts connections and never answers, as a black-holed host would. */
async function silentServer(): Promise<{
  port: number;
  accepted: number;
  open(): number;
  close(): Promise<void>;
}> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server: Server = createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    // Read and drop what the client sends, so that its close is seen.
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, HOST, resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    get accepted() {
      return accepted;
    },
    open: () => sockets.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      })
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
