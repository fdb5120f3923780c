import { describe, expect, it } from '@jest/globals';
import {
  firstConnectionUri,
  responseSecrets,
  SENSITIVE_FIELDS,
  withoutSecrets
} from '../src/neon/secrets.js';
import { openApiDocument } from './helpers/openapi.js';

/** Every `x-sensitive` list of the document, with the schema that holds it. */
function sensitiveMarks(): { schema: string; fields: string[] }[] {
  const marks: { schema: string; fields: string[] }[] = [];
  const walk = (node: unknown, schema: string): void => {
    if (Array.isArray(node)) for (const item of node) walk(item, schema);
    else if (node && typeof node === 'object') {
      const marked: unknown = Reflect.get(node, 'x-sensitive');
      if (Array.isArray(marked)) marks.push({ schema, fields: marked.map(String) });
      for (const [key, child] of Object.entries(node)) walk(child, `${schema}.${key}`);
    }
  };
  walk(openApiDocument(), '');
  return marks;
}

describe('the secrets of an answer', () => {
  const marks = sensitiveMarks();

  it('every field the OpenAPI document marks x-sensitive is classified in SENSITIVE_FIELDS', () => {
    expect(marks.length).toBeGreaterThan(20);
    const missing = marks.flatMap(({ schema, fields }) =>
      fields.filter((field) => !Object.hasOwn(SENSITIVE_FIELDS, field)).map((f) => `${schema}.${f}`)
    );
    expect(missing).toEqual([]);
  });

  it('every field of SENSITIVE_FIELDS is marked in the document (no stale row)', () => {
    const marked = new Set(marks.flatMap(({ fields }) => fields));
    expect(Object.keys(SENSITIVE_FIELDS).filter((field) => !marked.has(field))).toEqual([]);
  });

  it('a new API key, a credential, a Neon Auth integration: every secret masked', () => {
    const apiKey = {
      id: 165432,
      key: 'napi_0123456789abcdefghij',
      name: 'deploy',
      created_at: '2026-11-28T00:00:00Z',
      created_by: 'user-1'
    };
    expect(responseSecrets(apiKey)).toEqual([apiKey.key]);
    expect(withoutSecrets(apiKey)).toEqual({ ...apiKey, key: '***' });

    const credential = {
      token_id: 'tok-1',
      api_token: 'aaaa-api-token',
      s3_secret_access_key: 'bbbb-s3-secret'
    };
    expect(responseSecrets(credential)).toEqual(['aaaa-api-token', 'bbbb-s3-secret']);
    expect(withoutSecrets(credential)).toEqual({
      token_id: 'tok-1',
      api_token: '***',
      s3_secret_access_key: '***'
    });

    const auth = {
      auth_provider: 'stack',
      pub_client_key: 'pck_cccc',
      secret_server_key: 'ssk_dddd',
      jwks_url: 'https://example.invalid/jwks'
    };
    expect(responseSecrets(auth)).toEqual(['pck_cccc', 'ssk_dddd']);
  });

  it('names like key, *token and *secret* are secrets though the document marks none of them', () => {
    const answer = {
      oauth: { client_id: 'id-1', client_secret: 'eeee' },
      session: { refresh_token: 'ffff' },
      object: { key: 'gggg' }
    };
    expect(responseSecrets(answer)).toEqual(['eeee', 'ffff', 'gggg']);
  });

  it('personal fields, ids, flags and look-alikes stay shown (a mask blanks the value everywhere)', () => {
    const answer = {
      branch: { id: 'br-1', name: 'main', state: 'ready' },
      role: { name: 'neondb_owner', password: 'hhhh' },
      database: { name: 'neondb' },
      host: 'ep-a.neon.tech',
      cache_key: 'issue-1',
      jwt_role_claim_key: 'role',
      token_id: 'tok-1',
      store_passwords: true,
      passwordless_access: false
    };
    expect(responseSecrets(answer)).toEqual(['hhhh']);
  });

  it('a created branch: its password and connection URI, the first URI found', () => {
    const uri = 'postgresql://neondb_owner:iiii@ep-a.neon.tech/neondb?sslmode=require';
    const answer = {
      roles: [{ name: 'neondb_owner', password: 'iiii' }],
      connection_uris: [{ connection_uri: uri, connection_parameters: { password: 'iiii' } }]
    };
    expect(responseSecrets(answer)).toEqual(['iiii', uri, 'iiii']);
    expect(firstConnectionUri(answer)).toBe(uri);
    expect(withoutSecrets(answer)).toEqual({
      roles: [{ name: 'neondb_owner', password: '***' }],
      connection_uris: [{ connection_uri: '***', connection_parameters: { password: '***' } }]
    });
  });
});
