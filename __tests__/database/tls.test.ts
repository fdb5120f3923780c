/**
 * The probe against a real PostgreSQL server that takes TLS connections only (for the role the
 * probe uses), with a certificate from a throwaway CA made for this run. `sslmode` must mean what
 * it means in libpq: `require` encrypts without verifying, `verify-ca` checks the chain,
 * `verify-full` the chain and the host name.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type Cluster,
  createCluster,
  createTestCertificates,
  HOST,
  type TestCertificates,
  urlFor
} from '../../simulator/postgres.js';
import { expectNoSecret, failure, runProbe } from '../helpers/probe.js';

const PASSWORD = `Tls:@/?#%-${Math.random().toString(36).slice(2, 10)}`;

let certs: TestCertificates;
let server: Cluster;

beforeAll(async () => {
  certs = await createTestCertificates();
  server = await createCluster({
    hba: [
      // The tests' own set-up connects as the superuser without TLS; 'app' gets TLS or nothing.
      `host all postgres ${HOST}/32 scram-sha-256`,
      // One role per way of asking for the password, for channel_binding=require.
      `hostssl all clear ${HOST}/32 password`,
      `hostssl all hashed ${HOST}/32 md5`,
      `hostssl all trusted ${HOST}/32 trust`,
      `hostssl all all ${HOST}/32 scram-sha-256`
    ],
    settings: { ssl: 'on', ssl_cert_file: 'server.crt', ssl_key_file: 'server.key' },
    files: { 'server.crt': certs.serverCert, 'server.key': certs.serverKey }
  });
  await server.start();
  await server.sql(
    `CREATE ROLE app LOGIN PASSWORD '${PASSWORD}'`,
    'CREATE DATABASE appdb OWNER app',
    `CREATE ROLE clear LOGIN PASSWORD '${PASSWORD}'`,
    'CREATE ROLE trusted LOGIN',
    "SET password_encryption = 'md5'",
    `CREATE ROLE hashed LOGIN PASSWORD '${PASSWORD}'`
  );
}, 30_000);

afterAll(async () => {
  await Promise.all([server?.remove(), certs?.remove()]);
});

/** A URL to the server; `host` may be `localhost`, a name the certificate does not hold. */
function url(query: string, host = HOST, user = 'app'): string {
  return urlFor({ host, port: server.port }, user, PASSWORD, 'appdb', query);
}

const caParam = (): string => `sslrootcert=${encodeURIComponent(certs.caFile)}`;
const otherCaParam = (): string => `sslrootcert=${encodeURIComponent(certs.otherCaFile)}`;

describe('probeDatabase over TLS', () => {
  it.each([
    ['sslmode=require (encrypts, does not verify: libpq, not pg 8.2x)', () => '?sslmode=require'],
    [
      'sslmode=require with channel_binding=require',
      () => '?sslmode=require&channel_binding=require'
    ],
    ['sslmode=verify-full with the CA as sslrootcert', () => `?sslmode=verify-full&${caParam()}`],
    ['sslmode absent (prefer: TLS when the server has it)', () => ''],
    [
      'sslnegotiation=direct (TLS from the first byte, PostgreSQL 17+)',
      () => '?sslmode=require&sslnegotiation=direct'
    ],
    [
      'require_auth=scram-sha-256 and TLS 1.3 only',
      () => '?sslmode=require&require_auth=scram-sha-256&ssl_min_protocol_version=TLSv1.3'
    ],
    ['sslmode=allow (plain refused by pg_hba.conf, then TLS)', () => '?sslmode=allow']
  ])('is ready with %s', async (_name, query) => {
    const run = await runProbe(url(query()), 10_000);
    expect(run.result).toEqual({ ready: true, attempts: 1, elapsedMs: expect.any(Number) });
    expectNoSecret(run, url(query()), PASSWORD);
  });

  it('is ready with sslmode=verify-ca for a host name the certificate does not hold', async () => {
    const run = await runProbe(url(`?sslmode=verify-ca&${caParam()}`, 'localhost'), 10_000);
    expect(run.result.ready).toBe(true);
  });

  it.each([
    [
      'verify-full and a host name the certificate does not hold',
      () => url(`?sslmode=verify-full&${caParam()}`, 'localhost'),
      "(sslmode=verify-full): Hostname/IP does not match certificate's altnames"
    ],
    [
      'verify-full and a CA that did not sign the certificate',
      () => url(`?sslmode=verify-full&${otherCaParam()}`),
      '(sslmode=verify-full): unable to verify the first certificate'
    ],
    [
      'verify-full and the system CAs',
      () => url('?sslmode=verify-full'),
      '(sslmode=verify-full): unable to verify the first certificate'
    ],
    [
      'sslrootcert=system (libpq 16: verify-full against the system CAs)',
      () => url('?sslrootcert=system'),
      '(sslmode=verify-full): unable to verify the first certificate'
    ],
    [
      'require and a CA that did not sign the certificate (libpq: verify-ca)',
      () => url(`?sslmode=require&${otherCaParam()}`),
      '(sslmode=require): unable to verify the first certificate'
    ]
  ])('fails at once on %s', async (_name, makeUrl, text) => {
    const run = await runProbe(makeUrl(), 10_000);
    const result = failure(run);
    expect(result).toMatchObject({ reason: 'rejected', attempts: 1 });
    expect(result.message).toContain(`:${server.port}/appdb: TLS certificate verification failed`);
    expect(result.message).toContain(text);
    // One attempt (above), and no hanging until the 10 s deadline: half of it leaves room for a busy
    // machine (2020 ms against a bound of 2000 ms once, at a load of 18 on 2 cores).
    expect(run.sleptMs).toBe(0);
    expect(run.wallMs).toBeLessThan(5000);
    expectNoSecret(run, makeUrl(), PASSWORD);
  });

  it('fails at once with sslmode=disable, which the server turns away', async () => {
    const run = await runProbe(url('?sslmode=disable'), 10_000);
    const result = failure(run);
    expect(result).toMatchObject({ reason: 'rejected', attempts: 1 });
    expect(result.message).toContain(
      `no pg_hba.conf entry for host "${HOST}", user "app", database "appdb", no encryption (SQLSTATE 28000)`
    );
    expectNoSecret(run, url('?sslmode=disable'), PASSWORD);
  });

  it('fails at once when the sslrootcert file cannot be read', async () => {
    const missing = join(certs.dir, 'missing.crt');
    const run = await runProbe(url(`?sslmode=verify-full&sslrootcert=${missing}`), 10_000);
    const result = failure(run);
    expect(result).toMatchObject({ reason: 'rejected', attempts: 0 });
    expect(result.message).toContain(`cannot read the sslrootcert file '${missing}' (ENOENT)`);
  });

  it.each(['', 'not a certificate\n'])(
    'fails at once, with no attempt, on an sslrootcert file without a certificate (%j): no public CA instead',
    async (content) => {
      const file = join(certs.dir, `empty-${content.length}.crt`);
      await writeFile(file, content);
      for (const mode of ['verify-ca', 'verify-full', 'require']) {
        const run = await runProbe(url(`?sslmode=${mode}&sslrootcert=${file}`), 10_000);
        const result = failure(run);
        expect(result).toMatchObject({ reason: 'rejected', attempts: 0 });
        expect(result.message).toContain(
          `the sslrootcert file '${file}' (no PEM certificate in it)`
        );
      }
    }
  );

  it.each([
    ['clear', 'asked for a cleartext password'],
    ['hashed', 'asked for an MD5 password'],
    ['trusted', 'asked for no password']
  ])(
    'refuses, with channel_binding=require, a server that authenticates %s without SCRAM-SHA-256-PLUS',
    async (user, said) => {
      // The control: the same role connects when channel binding is only preferred.
      expect((await runProbe(url('?sslmode=require', HOST, user), 10_000)).result.ready).toBe(true);
      const strict = url('?sslmode=require&channel_binding=require', HOST, user);
      const run = await runProbe(strict, 10_000);
      const result = failure(run);
      expect(result).toMatchObject({ reason: 'rejected', attempts: 1 });
      expect(result.message).toContain(
        `authentication refused: channel_binding=require, and the server ${said}`
      );
      expectNoSecret(run, strict, PASSWORD);
    }
  );

  it('honours require_auth against a real server: !password refuses, scram-sha-256 connects', async () => {
    const refused = failure(
      await runProbe(url('?sslmode=require&require_auth=!password', HOST, 'clear'), 10_000)
    );
    expect(refused.message).toContain(
      'require_auth=!password, and the server asked for a cleartext password; no password was sent'
    );
    expect(
      (await runProbe(url('?sslmode=require&require_auth=scram-sha-256'), 10_000)).result.ready
    ).toBe(true);
  });
});
