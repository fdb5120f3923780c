/**
 * The classification table on its own. The errors below have the shape pg and Node give them
 * (the probe tests meet the real ones from real servers); Neon's proxy cannot run here, so its
 * messages are taken from its documentation.
 */
import { describe, expect, it } from '@jest/globals';
import { classifyConnectionError } from '../../src/database/attempt.js';
import { AttemptTimeoutError } from '../../src/util/errors.js';

/** What pg's DatabaseError carries: the server's message, severity and SQLSTATE. */
function serverError(code: string, message: string): Error {
  return Object.assign(new Error(message), { severity: 'FATAL', code });
}

function nodeError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('classifyConnectionError', () => {
  it.each([
    [serverError('57P03', 'the database system is starting up'), 'starting up (SQLSTATE 57P03)'],
    [serverError('57P01', 'terminating connection due to administrator command'), '57P01'],
    [serverError('53300', 'sorry, too many clients already'), '53300'],
    [serverError('08006', 'connection failure'), '08006'],
    [serverError('XX000', "Couldn't connect to compute node"), 'compute node'],
    [serverError('XX000', 'Console request failed'), 'Console'],
    [new Error('Failed to acquire permit to connect to the database.'), 'permit'],
    [nodeError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'), 'ECONNREFUSED'],
    [nodeError('ECONNRESET', 'read ECONNRESET'), 'ECONNRESET'],
    [nodeError('ENOTFOUND', 'getaddrinfo ENOTFOUND ep-x.neon.tech'), 'ENOTFOUND'],
    [nodeError('EAI_AGAIN', 'getaddrinfo EAI_AGAIN ep-x.neon.tech'), 'EAI_AGAIN'],
    [nodeError('ETIMEDOUT', 'connect ETIMEDOUT 10.0.0.1:5432'), 'ETIMEDOUT'],
    [new Error('Connection terminated unexpectedly'), 'terminated'],
    [new AttemptTimeoutError('no answer within 900 ms'), 'no answer'],
    [
      Object.assign(
        new AggregateError([
          nodeError('ECONNREFUSED', 'connect ECONNREFUSED ::1:5432'),
          nodeError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')
        ]),
        { code: 'ECONNREFUSED' }
      ),
      'connect ECONNREFUSED ::1:5432; connect ECONNREFUSED 127.0.0.1:5432'
    ]
  ])('retries %s', (error, text) => {
    const classified = classifyConnectionError(error, 'sslmode=require');
    expect(classified.retry).toBe(true);
    expect(classified.message).toContain(text);
  });

  it.each([
    [serverError('28P01', 'password authentication failed for user "app"'), '28P01'],
    [serverError('28000', 'role "ghost" does not exist'), 'ghost'],
    [serverError('28000', 'no pg_hba.conf entry for host "1.2.3.4", no encryption'), 'pg_hba'],
    [serverError('3D000', 'database "nope" does not exist'), '3D000'],
    [serverError('42501', 'permission denied for database "d"'), '42501'],
    [serverError('XX000', 'Endpoint ID is not specified. Either please upgrade'), 'Endpoint ID'],
    [serverError('08P01', 'unsupported startup parameter: x'), 'unsupported'],
    [nodeError('SELF_SIGNED_CERT_IN_CHAIN', 'self-signed certificate in certificate chain'), 'TLS'],
    [nodeError('ERR_TLS_CERT_ALTNAME_INVALID', 'Hostname/IP does not match'), 'verify-full'],
    [
      new Error('The server does not support SSL connections'),
      'does not offer TLS, which sslmode=verify-full asks for'
    ],
    [new Error('SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a string'), 'has none'],
    [new Error('SASL: SCRAM-SERVER-FINAL-MESSAGE: server signature does not match'), 'SASL']
  ])('rejects %s', (error, text) => {
    const classified = classifyConnectionError(error, 'sslmode=verify-full');
    expect(classified.retry).toBe(false);
    expect(classified.message).toContain(text);
  });

  it('gives one line', () => {
    const error = serverError('57P03', 'the database system\nis starting up');
    expect(classifyConnectionError(error, 'sslmode=prefer').message).toBe(
      'the database system is starting up (SQLSTATE 57P03)'
    );
  });
});
