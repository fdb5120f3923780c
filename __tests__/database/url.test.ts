import { describe, expect, it } from '@jest/globals';
import { describeTarget, parseDatabaseUrl } from '../../src/database/url.js';
import { secretsOf } from '../../src/util/url-secrets.js';
import { DatabaseUrlError } from '../../src/util/errors.js';
import { redactUrl } from '../../src/util/redact.js';

const NEON =
  'postgresql://alex:AbC123dEfGh@ep-cool-darkness-123456.us-east-2.aws.neon.tech/neondb?sslmode=require&channel_binding=require';

function parseError(value: string): DatabaseUrlError {
  try {
    parseDatabaseUrl(value);
  } catch (error) {
    if (error instanceof DatabaseUrlError) return error;
    throw error;
  }
  throw new Error(`parsed: ${value}`);
}

describe('parseDatabaseUrl', () => {
  it('reads the db_url of create-branch-action', () => {
    const target = parseDatabaseUrl(NEON);
    expect(target).toEqual({
      host: 'ep-cool-darkness-123456.us-east-2.aws.neon.tech',
      port: 5432,
      database: 'neondb',
      user: 'alex',
      sslMode: 'require',
      channelBinding: 'require'
    });
    expect(target.password).toBe('AbC123dEfGh');
  });

  it('keeps the password out of JSON, keys and inspection', async () => {
    const target = parseDatabaseUrl(NEON);
    const { inspect } = await import('node:util');
    expect(JSON.stringify(target)).not.toContain('AbC123dEfGh');
    expect(Object.keys(target)).not.toContain('password');
    expect(inspect(target)).not.toContain('AbC123dEfGh');
  });

  it('decodes percent-encoded user, password and database; defaults port, database and sslmode', () => {
    const target = parseDatabaseUrl(
      ' postgres://b%C3%A9a:p%40ss%3Aw%2Frd%25@db.example:6543/my%20db '
    );
    expect(target).toMatchObject({
      user: 'béa',
      host: 'db.example',
      port: 6543,
      database: 'my db',
      sslMode: 'prefer',
      channelBinding: 'prefer'
    });
    expect(target.password).toBe('p@ss:w/rd%');
    expect(parseDatabaseUrl('postgresql://app:pw@h/')).toMatchObject({
      database: 'app',
      port: 5432
    });
  });

  it('reads an IPv6 host, query parameters and libpq overrides', () => {
    const target = parseDatabaseUrl(
      'postgresql://[::1]:5433/x?user=u&password=sec%20ret&dbname=d&sslmode=VERIFY-FULL' +
        '&sslrootcert=/tmp/ca.pem&options=endpoint%3Dep-abc&application_name=ci&connect_timeout=5'
    );
    expect(target).toEqual({
      host: '::1',
      port: 5433,
      database: 'd',
      user: 'u',
      sslMode: 'verify-full',
      sslRootCert: '/tmp/ca.pem',
      channelBinding: 'prefer',
      options: 'endpoint=ep-abc',
      applicationName: 'ci'
    });
    expect(target.password).toBe('sec ret');
    expect(describeTarget(target)).toBe('[::1]:5433/d');
    expect(parseDatabaseUrl('postgres://u:p@h/d?sslmode=no-verify').sslMode).toBe('require');
  });

  it('reads the security parameters as libpq 16 does', () => {
    expect(parseDatabaseUrl('postgresql://u:p@h/d?sslrootcert=system')).toMatchObject({
      sslMode: 'verify-full',
      sslRootCert: 'system'
    });
    expect(
      parseDatabaseUrl(
        'postgresql://u:p@h/d?sslmode=require&require_auth=!password,!md5&ssl_min_protocol_version=tlsv1.3' +
          '&ssl_max_protocol_version=TLSv1.3&sslnegotiation=direct&sslcertmode=allow&gssencmode=disable'
      )
    ).toMatchObject({
      requireAuth: { methods: ['password', 'md5'], negated: true },
      minTls: 'TLSv1.3',
      maxTls: 'TLSv1.3',
      directTls: true
    });
    expect(parseDatabaseUrl('postgresql://u:p@h/d?host=other&port=6000')).toMatchObject({
      host: 'other',
      port: 6000
    });
  });

  it('reads a repeated parameter as libpq does: in order, the last one wins', () => {
    const read = (query: string) => parseDatabaseUrl(`postgresql://u:p@h/d?${query}`);
    expect(read('sslmode=prefer&sslmode=verify-full').sslMode).toBe('verify-full');
    expect(read('channel_binding=prefer&channel_binding=require').channelBinding).toBe('require');
    expect(read('channel_binding=require&channel_binding=disable').channelBinding).toBe('disable');
    expect(read('require_auth=password&require_auth=scram-sha-256').requireAuth).toEqual({
      methods: ['scram-sha-256'],
      negated: false
    });
    expect(read('dbname=a&dbname=b').database).toBe('b');
  });

  it("accepts libpq's other parameters, which do not change what SELECT 1 proves", () => {
    const query =
      'connect_timeout=5&keepalives=1&target_session_attrs=any&client_encoding=UTF8&sslsni=1' +
      '&uselibpqcompat=true&sslmode=require';
    expect(parseDatabaseUrl(`postgresql://u:p@h/d?${query}`).sslMode).toBe('require');
  });

  it("takes every security parameter the URL leaves out from libpq's environment", () => {
    const env = {
      PGSSLMODE: 'verify-full',
      PGSSLROOTCERT: '/ca.pem',
      PGCHANNELBINDING: 'require',
      PGREQUIREAUTH: 'scram-sha-256',
      PGSSLNEGOTIATION: 'direct',
      PGSSLMINPROTOCOLVERSION: 'TLSv1.3',
      PGSSLMAXPROTOCOLVERSION: 'TLSv1.3',
      PGGSSENCMODE: 'disable',
      PGSSLCERTMODE: 'allow'
    };
    expect(parseDatabaseUrl('postgresql://u:p@h/d', env)).toMatchObject({
      sslMode: 'verify-full',
      sslRootCert: '/ca.pem',
      channelBinding: 'require',
      requireAuth: { methods: ['scram-sha-256'], negated: false },
      directTls: true,
      minTls: 'TLSv1.3',
      maxTls: 'TLSv1.3'
    });
    // The URL's own parameter wins, as in libpq.
    const url = 'postgresql://u:p@h/d?sslmode=disable&channel_binding=disable';
    expect(
      parseDatabaseUrl(url, { PGSSLMODE: 'require', PGCHANNELBINDING: 'require' })
    ).toMatchObject({
      sslMode: 'disable',
      channelBinding: 'disable'
    });
    expect(parseDatabaseUrl('postgresql://u:p@h/d', { PGSSLROOTCERT: 'system' }).sslMode).toBe(
      'verify-full'
    );
  });

  it('takes the target and the password from the URL only (PGPASSWORD, PGHOST, ... ignored)', () => {
    const env = {
      PGPASSWORD: 'other',
      PGPASSFILE: '/p',
      PGHOST: 'other',
      PGPORT: '1',
      PGUSER: 'other',
      PGDATABASE: 'other'
    };
    const target = parseDatabaseUrl('postgresql://u@h/d', env);
    expect(target).toMatchObject({ host: 'h', port: 5432, user: 'u', database: 'd' });
    expect(target.password).toBe('');
  });

  it.each([
    [{ PGSSLMODE: 'always' }, 'has sslmode=always (from PGSSLMODE); expected one of'],
    [{ PGSSLMODE: '' }, 'has sslmode= (from PGSSLMODE); expected one of'],
    [{ PGSSLCERT: '/c.pem' }, 'has sslcert=/c.pem (from PGSSLCERT), which this check cannot'],
    [{ PGSSLKEY: '/k.pem' }, 'has sslkey=/k.pem (from PGSSLKEY)'],
    [{ PGSSLCRL: '/crl.pem' }, 'revocation lists'],
    [{ PGGSSENCMODE: 'require' }, 'has gssencmode=require (from PGGSSENCMODE)'],
    [{ PGSERVICE: 'prod' }, 'has service=prod (from PGSERVICE)'],
    [{ PGREQUIREPEER: 'postgres' }, 'Unix sockets'],
    [{ PGREQUIREAUTH: 'kerberos' }, 'has require_auth=kerberos (from PGREQUIREAUTH)'],
    [{ PGCHANNELBINDING: 'require', PGSSLMODE: 'disable' }, 'asks for channel_binding=require'],
    [{ PGSSLNEGOTIATION: 'direct' }, 'has sslnegotiation=direct (from PGSSLNEGOTIATION)'],
    [{ PGSSLROOTCERT: 'system', PGSSLMODE: 'require' }, 'sslmode=require (from PGSSLMODE)']
  ])("refuses what libpq's environment asks and this check cannot honour: %j", (env, reason) => {
    let error: unknown;
    try {
      parseDatabaseUrl('postgresql://u:Secr3tPass@h/d', env);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(DatabaseUrlError);
    expect((error as Error).message).toContain(reason);
    expect((error as Error).message).not.toContain('Secr3tPass');
  });

  it('refuses verify-ca without a root certificate, from the URL or the environment', () => {
    const reason = 'without sslrootcert: verify-ca trusts only the CAs of an sslrootcert file';
    expect(parseError('postgresql://u:p@h/d?sslmode=verify-ca').message).toContain(
      `has sslmode=verify-ca ${reason}`
    );
    expect(() => parseDatabaseUrl('postgresql://u:p@h/d', { PGSSLMODE: 'verify-ca' })).toThrow(
      `has sslmode=verify-ca (from PGSSLMODE) ${reason}`
    );
    expect(() => parseDatabaseUrl('postgresql://u:p@h/d?sslmode=verify-ca&sslrootcert=')).toThrow(
      reason
    );
    const env = { PGSSLMODE: 'verify-ca', PGSSLROOTCERT: '/ca.pem' };
    expect(parseDatabaseUrl('postgresql://u:p@h/d', env).sslRootCert).toBe('/ca.pem');
  });

  it("uses libpq's ~/.postgresql/root.crt when nothing names a root certificate", async () => {
    const { mkdtemp, mkdir, writeFile, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const home = await mkdtemp(join(tmpdir(), 'home-'));
    try {
      expect(
        parseDatabaseUrl('postgresql://u:p@h/d?sslmode=require', { HOME: home }).sslRootCert
      ).toBeUndefined();
      await mkdir(join(home, '.postgresql'));
      await writeFile(join(home, '.postgresql', 'root.crt'), '');
      const root = join(home, '.postgresql', 'root.crt');
      expect(
        parseDatabaseUrl('postgresql://u:p@h/d?sslmode=verify-ca', { HOME: home })
      ).toMatchObject({
        sslMode: 'verify-ca',
        sslRootCert: root
      });
      expect(
        parseDatabaseUrl('postgresql://u:p@h/d?sslrootcert=/ca.pem', { HOME: home }).sslRootCert
      ).toBe('/ca.pem');
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it.each([
    ['postgresql://u@h/d?sslmode=always&amp;password=Secr3tPass', 'sslmode=always'],
    ['postgresql://u@h/d?sslmode=require;password=Secr3tPass', 'sslmode=***'],
    ['postgresql://u@h/d?sslmode=always&pass%77ord=Secr3tPass', 'sslmode=always'],
    ['postgresql://u@h/d?sslmode=always&pass%77ord=Secr3tPass', 'always&***=***'],
    ['postgresql://u@h/d?sslMode=Secr3tPass', 'sslMode=***'],
    ['postgresql://u@h/d?channel_binding=x&password=Secr3tPass', 'password=***'],
    ['postgresql://u@h/d?options=a@b&password=Secr3tPass&sslmode=x', "'postgresql://***@h/d?"],
    ['postgresql://u@h/d?require_auth=md5;password=Secr3tPass', 'require_auth=***'],
    ['postgresql://u@h/d?sslmode=x#password=Secr3tPass', 'sslmode=x#***'],
    ['postgresql://u@h/d?sslmode=x&Secr3tPass%3D=1', 'has a parameter, unknown to libpq']
  ])(
    'shows no value it cannot prove harmless, however a parameter is spelled: %s',
    (url, shown) => {
      const error = parseError(url);
      expect(error.message).toContain(shown);
      expect(error.message).not.toContain('Secr3t');
      // Masked everywhere too, when it is a value of the query.
      const masked = secretsOf(url).some((each) => each.includes('Secr3tPass') && each !== url);
      expect(masked).toBe(!/#|%3D=/.test(url));
    }
  );

  it.each([
    ['', 'is empty'],
    ['   ', 'is empty'],
    ['mysql://u:Secr3tPass@h/d', 'does not start with postgresql://'],
    ['Secr3tPass:x@h/d', 'does not start with postgresql://'],
    ['just text Secr3tPass', 'does not start with postgresql://'],
    ['postgresql:Secr3tPass@h/d', 'does not start with postgresql://'],
    ['postgresql://u:Secr3tPass@/d', 'not a valid URL'],
    ['postgresql:///d?password=Secr3tPass', 'no host'],
    ['postgresql://u:Secr3tPass@h:99999/d', 'not a valid URL'],
    ['postgresql://u:Secr3tPass@h1:5432,h2:5432/d', 'not a valid URL'],
    ['postgresql://u:Secr3tPass@h1,h2/d', 'several hosts'],
    ['postgresql://:Secr3tPass@h/d', 'no user name'],
    ['postgresql://u:Secr3tPass@h/a/b', 'a "/" in the database name'],
    ['postgresql://u:Secr3tPass@h/d?sslmode=always', 'sslmode=always'],
    ['postgresql://u:Secr3tPass@h/d?channel_binding=yes', 'channel_binding=yes'],
    ['postgresql://u:Secr3tPass@h/d?sslmode=disable&channel_binding=require', 'needs TLS'],
    ['postgresql://u:Secr3tPass@h/d?host=/var/run/postgresql', 'Unix sockets'],
    ['postgresql://u@h/d?password=Secr3tPass&hostaddr=10.0.0.1', 'hostaddr=10.0.0.1'],
    ['postgresql://u:Secr3tPass@h/d?sslrootcert=system&sslmode=require', 'sslmode=require'],
    ['postgresql://u:Secr3tPass@h/d?sslrootcert=system&sslmode=verify-ca', 'verify-full'],
    ['postgresql://u:Secr3tPass@h/d?sslcert=/c.pem', 'client certificates'],
    ['postgresql://u:Secr3tPass@h/d?sslcertmode=require', 'client certificates'],
    ['postgresql://u:pw@h/d?sslkey=/k.pem&sslpassword=Secr3tPass', 'has sslkey=/k.pem'],
    ['postgresql://u:pw@h/d?sslpassword=Secr3tPass', 'has sslpassword, which'],
    ['postgresql://u:Secr3tPass@h/d?sslcrl=/crl.pem', 'revocation'],
    ['postgresql://u:Secr3tPass@h/d?gssencmode=require', 'gssencmode=require'],
    ['postgresql://u:Secr3tPass@h/d?ssl=true', "pg's own parameter"],
    [
      'postgresql://u:Secr3tPass@h/d?sslMode=verify-full',
      "has the parameter 'sslMode', unknown to libpq (names are case-sensitive: write sslmode)"
    ],
    ['postgresql://u:Secr3tPass@h/d?SSLMODE=require', "'SSLMODE', unknown to libpq"],
    [
      'postgresql://u:Secr3tPass@h/d?sslmode=require&Channel_Binding=require',
      "'Channel_Binding', unknown to libpq (names are case-sensitive: write channel_binding)"
    ],
    ['postgresql://u:Secr3tPass@h/d?pgbouncer=true', "has the parameter 'pgbouncer', unknown to"],
    ['postgresql://u:Secr3tPass@h/d?require_auth=md5,!password', 'require_auth=md5,!password'],
    ['postgresql://u:Secr3tPass@h/d?require_auth=kerberos', 'require_auth=kerberos'],
    ['postgresql://u:Secr3tPass@h/d?ssl_min_protocol_version=SSLv3', 'ssl_min_protocol_version'],
    [
      'postgresql://u:Secr3tPass@h/d?ssl_min_protocol_version=TLSv1.3&ssl_max_protocol_version=TLSv1.2',
      'above ssl_max_protocol_version'
    ],
    [
      'postgresql://u:Secr3tPass@h/d?sslnegotiation=direct',
      'sslnegotiation=direct with sslmode=prefer'
    ]
  ])('rejects %j: names the input and the form, never the password', (value, reason) => {
    const error = parseError(value);
    expect(error.message).toContain("input 'database_url'");
    expect(error.message).toContain(reason);
    expect(error.message).toContain('postgresql://user:password@host[:port]/database');
    expect(error.message).not.toContain('Secr3tPass');
    expect(error.message.split('\n')).toHaveLength(1);
  });

  it('shows a parsed but unusable URL with the password replaced', () => {
    const error = parseError('postgresql://u:Secr3tPass@h/d?sslmode=always');
    expect(error.message).toContain("'postgresql://***@h/d?sslmode=always'");
  });
});

describe('secretsOf', () => {
  it('lists the URL and every form of the password', () => {
    const url = 'postgresql://u:p%40ss%2Fw0rd@h/d?sslmode=require';
    const secrets = secretsOf(` ${url} `);
    expect(secrets).toEqual(
      expect.arrayContaining([` ${url} `, url, 'p%40ss%2Fw0rd', 'p@ss/w0rd'])
    );
    expect(secrets).not.toContain('');
  });

  it('finds the password of a malformed URL and of a password= parameter', () => {
    expect(secretsOf('postgresql://u:pa ss#w0rd@h:99999999/d')).toEqual(
      expect.arrayContaining(['pa ss#w0rd', 'pa%20ss%23w0rd'])
    );
    expect(secretsOf('postgresql://u@h/d?password=qu%3Dery&sslmode=require')).toEqual(
      expect.arrayContaining(['qu%3Dery', 'qu=ery'])
    );
    expect(secretsOf('postgresql://u:first@h/d?options=a@b')).toContain('first');
  });

  it('lists nothing but the value when there is no password', () => {
    expect(secretsOf('postgresql://u@h/d')).toEqual(['postgresql://u@h/d']);
  });
});

describe('redactUrl', () => {
  it('replaces the password in the authority and in the query', () => {
    expect(redactUrl('postgresql://u:p@ss@h/d?password=x&sslmode=require')).toBe(
      'postgresql://***@h/d?password=***&sslmode=***'
    );
    const harmless = new Set(['sslmode', 'password']);
    expect(redactUrl('postgresql://u:p@ss@h/d?password=x&sslmode=require', harmless)).toBe(
      'postgresql://***@h/d?password=x&sslmode=require'
    );
    expect(redactUrl('https://k:Secr3t@example.com/x')).toBe('https://***@example.com/x');
    expect(redactUrl('postgresql://h/d?sslmode=require', harmless)).toBe(
      'postgresql://h/d?sslmode=require'
    );
  });

  it('keeps the host when the path or the query holds an @, and hides a password holding / ? #', () => {
    // The host stays; the value is hidden since nothing said `application_name` is harmless.
    expect(redactUrl('postgres://u:p@host/db?application_name=a@b')).toBe(
      'postgres://***@host/db?application_name=***'
    );
    expect(redactUrl('postgres://u:p/?#1@host/d@b')).toBe('postgres://***@host/d@b');
    expect(redactUrl('u:p@host:5432/db')).toBe('***@host:5432/db');
  });

  it("hides libpq 18's other secrets, also in the message that refuses a parameter", () => {
    const url =
      'postgresql://u@h/d?oauth_client_secret=Secr3tPass&scram_client_key=Secr3tKey&sslMode=x';
    expect(redactUrl(url)).toBe(
      'postgresql://***@h/d?oauth_client_secret=***&scram_client_key=***&sslMode=***'
    );
    expect(secretsOf(url)).toEqual(expect.arrayContaining(['Secr3tPass', 'Secr3tKey']));
    expect(parseError(url).message).not.toMatch(/Secr3t/);
  });
});
