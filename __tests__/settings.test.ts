import { afterEach, describe, expect, it } from '@jest/globals';
import * as core from '@actions/core';
import { readSettings } from '../src/settings.js';
import type { InputReader } from '../src/settings/fields.js';
import { sinceInput } from '../src/settings/since.js';
import { InputError } from '../src/util/errors.js';

const KEY = 'napi_Zq7xK9distinctiveKEYvalue4242';
const OP_A = 'd8ac46eb-a757-42b1-9907-f78322ee394e';
const OP_B = '1f2e3d4c-5b6a-4798-8a9b-0c1d2e3f4a5b';
const OP_C = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee';

/** An InputReader over a plain object: every input not given reads as '' (unset). */
function reader(values: Record<string, string>): InputReader {
  return (name) => values[name] ?? '';
}

/** What readSettings asked to mask (the runner's `::add-mask::`), for the tests that look. */
const masked: string[] = [];
const mask = (secret: string): void => void masked.push(secret);

function settingsOf(values: Record<string, string>) {
  return readSettings(reader({ api_key: KEY, ...values }), mask);
}

function operation(id: string, projectId = 'spring-example-302709', status = 'running') {
  return {
    id,
    project_id: projectId,
    branch_id: 'br-wispy-meadow-118737',
    action: 'create_branch',
    status,
    failures_count: 0,
    created_at: '2024-01-01T00:00:00Z',
    updated_at: '2024-01-01T00:00:01Z'
  };
}

/** Runs readSettings and returns the InputError it throws; fails the test if it throws nothing else. */
function inputErrorOf(values: Record<string, string>): InputError {
  try {
    readSettings(reader(values), mask);
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return error as InputError;
  }
  throw new Error(`expected an InputError for ${JSON.stringify(values)}`);
}

describe('readSettings defaults', () => {
  it('fills in every default when only api_key is set', () => {
    const settings = settingsOf({});
    expect(settings).toMatchObject({
      apiKey: KEY,
      apiHost: 'https://console.neon.tech/api/v2',
      wait: true,
      timeoutMs: 600_000,
      intervalMs: 5000,
      policy: { failOn: ['error', 'cancelled'], failFast: false },
      summary: true,
      summaryLimit: 20,
      commentOnPr: false,
      commentTag: '',
      githubToken: '',
      operationIds: [],
      givenOperations: []
    });
    expect(settings.projectId).toBeUndefined();
    expect(settings.orgId).toBeUndefined();
    expect(settings.branchId).toBeUndefined();
  });

  it('treats whitespace-only optional inputs as unset', () => {
    const settings = settingsOf({ timeout: '  ', interval: '\n', wait: ' ', summary_limit: ' ' });
    expect(settings.timeoutMs).toBe(600_000);
    expect(settings.intervalMs).toBe(5000);
    expect(settings.wait).toBe(true);
    expect(settings.summaryLimit).toBe(20);
  });

  it('trims the api key', () => {
    expect(settingsOf({ api_key: `  ${KEY}\n` }).apiKey).toBe(KEY);
  });

  it.each([
    ['timeout', '90', 'timeoutMs', 90_000],
    ['timeout', '1s', 'timeoutMs', 1000],
    ['timeout', '6h', 'timeoutMs', 21_600_000],
    ['timeout', '1m30s', 'timeoutMs', 90_000],
    ['interval', '1s', 'intervalMs', 1000],
    ['interval', '1h', 'intervalMs', 3_600_000],
    ['interval', '30s', 'intervalMs', 30_000],
    ['summary_limit', '0', 'summaryLimit', 0],
    ['summary_limit', '1000', 'summaryLimit', 1000],
    ['wait', 'false', 'wait', false],
    ['wait', 'FALSE', 'wait', false],
    ['wait', 'False', 'wait', false],
    ['fail_fast', 'true', 'policy.failFast', true],
    ['fail_fast', 'True', 'policy.failFast', true],
    ['fail_on', 'error, skipped', 'policy.failOn', ['error', 'skipped']],
    ['fail_on', 'error', 'policy.failOn', ['error']],
    ['summary', 'false', 'summary', false],
    ['comment_on_pr', 'TRUE', 'commentOnPr', true],
    ['comment_tag', 'staging db: v1.2/@me+x_y', 'commentTag', 'staging db: v1.2/@me+x_y'],
    ['project_id', 'spring-example-302709', 'projectId', 'spring-example-302709'],
    ['org_id', 'org-morning-bread-81040908', 'orgId', 'org-morning-bread-81040908'],
    ['branch_id', 'br-wispy-meadow-118737', 'branchId', 'br-wispy-meadow-118737'],
    ['github_token', ' ghs_token ', 'githubToken', 'ghs_token']
  ])('reads %s %j', (name, value, field, expected) => {
    expect(settingsOf({ [name]: value })).toHaveProperty(field, expected);
  });
});

describe('readSettings operation ids', () => {
  it('splits operation_id on commas, spaces and newlines', () => {
    const settings = settingsOf({ operation_id: `${OP_A},${OP_B}\n${OP_C}` });
    expect(settings.operationIds).toEqual([OP_A, OP_B, OP_C]);
  });

  it('accepts mixed and repeated separators', () => {
    const settings = settingsOf({ operation_id: ` ${OP_A} ,, \r\n\t${OP_B},\n` });
    expect(settings.operationIds).toEqual([OP_A, OP_B]);
  });

  it('lower-cases and deduplicates', () => {
    const settings = settingsOf({
      operation_id: `${OP_A.toUpperCase()} ${OP_A}\n${OP_B},${OP_B.toUpperCase()}`
    });
    expect(settings.operationIds).toEqual([OP_A, OP_B]);
  });
});

describe('readSettings operations JSON', () => {
  it('reads an object with an operations array and takes project_id from it', () => {
    const body = { branch: { id: 'br-x' }, operations: [operation(OP_A), operation(OP_B)] };
    const settings = settingsOf({ operations: JSON.stringify(body) });
    expect(settings.operationIds).toEqual([OP_A, OP_B]);
    expect(settings.givenOperations.map((op) => op.id)).toEqual([OP_A, OP_B]);
    expect(settings.givenOperations[0]).toMatchObject({ action: 'create_branch' });
    expect(settings.projectId).toBe('spring-example-302709');
  });

  it('reads a bare array', () => {
    const settings = settingsOf({ operations: JSON.stringify([operation(OP_C, 'other-project')]) });
    expect(settings.operationIds).toEqual([OP_C]);
    expect(settings.projectId).toBe('other-project');
  });

  it('lower-cases ids and merges them with operation_id without repeats', () => {
    const settings = settingsOf({
      operation_id: `${OP_A}, ${OP_C}`,
      operations: JSON.stringify([operation(OP_A.toUpperCase()), operation(OP_B)])
    });
    expect(settings.operationIds).toEqual([OP_A, OP_C, OP_B]);
    expect(settings.givenOperations.map((op) => op.id)).toEqual([OP_A, OP_B]);
  });

  it('accepts a project_id input equal to the operations project', () => {
    const settings = settingsOf({
      project_id: 'spring-example-302709',
      operations: JSON.stringify([operation(OP_A)])
    });
    expect(settings.projectId).toBe('spring-example-302709');
  });

  it('refuses operations of two projects', () => {
    const error = inputErrorOf({
      api_key: KEY,
      operations: JSON.stringify([operation(OP_A, 'project-one'), operation(OP_B, 'project-two')])
    });
    expect(error.message).toContain("'operations'");
    expect(error.message).toMatch(/several projects/);
    expect(error.message).toContain('project-one');
    expect(error.message).toContain('project-two');
  });

  it('refuses a project_id input that differs from the operations project', () => {
    const error = inputErrorOf({
      api_key: KEY,
      project_id: 'project-two',
      operations: JSON.stringify({ operations: [operation(OP_A, 'project-one')] })
    });
    expect(error.message).toContain("'operations'");
    expect(error.message).toContain("'project_id'");
    expect(error.message).toContain('project-one');
    expect(error.message).toContain('project-two');
  });
});

describe('readSettings api_host', () => {
  it.each([
    ['http://127.0.0.1:8080/api/v2', 'http://127.0.0.1:8080/api/v2'],
    ['http://[::1]:1/api/v2', 'http://[::1]:1/api/v2'],
    ['http://localhost/api/v2', 'http://localhost/api/v2'],
    ['http://LOCALHOST:3000/api/v2', 'http://localhost:3000/api/v2'],
    ['https://console.neon.tech/api/v2/', 'https://console.neon.tech/api/v2'],
    ['https://console.neon.tech/api/v2//', 'https://console.neon.tech/api/v2'],
    ['  https://eu.example.com/api/v2  ', 'https://eu.example.com/api/v2']
  ])('accepts %s', (value, expected) => {
    expect(settingsOf({ api_host: value }).apiHost).toBe(expected);
  });
});

describe('readSettings bad inputs', () => {
  const SPACED_KEY = `${KEY} second-half`;
  const sixtyOne = 'a'.repeat(61);
  const notJson = '{"operations": [';
  const withoutId = JSON.stringify([{ ...operation(OP_A), id: undefined }]);

  // [what, inputs (api_key defaults to KEY), input named in quotes, the expected form]
  const cases: Array<[string, Record<string, string>, string, RegExp]> = [
    ['api_key empty', { api_key: '' }, 'api_key', /required.*secrets\.NEON_API_KEY/],
    ['api_key whitespace', { api_key: ' \n\t ' }, 'api_key', /required/],
    ['api_key with a space', { api_key: SPACED_KEY }, 'api_key', /single token without spaces/],
    ['api_key with a newline', { api_key: `${KEY}\nmore` }, 'api_key', /single token/],
    ['timeout soon', { timeout: 'soon' }, 'timeout', /duration from 1s to 6h.*not a duration/],
    ['timeout 0', { timeout: '0' }, 'timeout', /duration from 1s to 6h.*too short/],
    ['timeout -5s', { timeout: '-5s' }, 'timeout', /duration from 1s to 6h.*not a duration/],
    ['timeout 0s', { timeout: '0s' }, 'timeout', /duration from 1s to 6h.*too short/],
    ['timeout 7h', { timeout: '7h' }, 'timeout', /duration from 1s to 6h.*too long/],
    ['timeout 500ms', { timeout: '500ms' }, 'timeout', /duration from 1s to 6h.*too short/],
    ['interval 0.5s', { interval: '0.5s' }, 'interval', /duration from 1s to 1h.*too short/],
    ['interval 2h', { interval: '2h' }, 'interval', /duration from 1s to 1h.*too long/],
    ['interval abc', { interval: 'abc' }, 'interval', /duration from 1s to 1h.*not a duration/],
    ['summary_limit -1', { summary_limit: '-1' }, 'summary_limit', /whole number from 0 to 1000/],
    ['summary_limit 1001', { summary_limit: '1001' }, 'summary_limit', /whole number/],
    ['summary_limit ten', { summary_limit: 'ten' }, 'summary_limit', /whole number/],
    ['summary_limit 1.5', { summary_limit: '1.5' }, 'summary_limit', /whole number/],
    ['wait maybe', { wait: 'maybe' }, 'wait', /true or false/],
    ['wait yes (not a core.getBooleanInput value)', { wait: 'yes' }, 'wait', /true or false/],
    ['summary off', { summary: 'off' }, 'summary', /true or false/],
    ['wait 1', { wait: '1' }, 'wait', /true or false/],
    ['fail_fast maybe', { fail_fast: 'maybe' }, 'fail_fast', /true or false/],
    ['fail_on finished', { fail_on: 'finished' }, 'fail_on', /any of skipped, cancelled or error/],
    ['fail_on failed', { fail_on: 'error,failed' }, 'fail_on', /any of .*; got 'error,failed'/],
    ['fail_on Error', { fail_on: 'Error' }, 'fail_on', /any of skipped, cancelled or error/],
    // Separators only: refused as the command refuses `--fail-on ,`, not read as "fail on nothing".
    ['fail_on ,', { fail_on: ',' }, 'fail_on', /any of .*; got ',', which names none\./],
    ['fail_on " , "', { fail_on: ' , ' }, 'fail_on', /any of .*; got ' ?, ?', which names none\./],
    ['summary 1', { summary: '1' }, 'summary', /true or false/],
    ['comment_on_pr maybe', { comment_on_pr: 'maybe' }, 'comment_on_pr', /true or false/],
    ['operation_id not a UUID', { operation_id: 'op-123' }, 'operation_id', /UUIDs/],
    [
      'operation_id with one bad id among good ones',
      { operation_id: `${OP_A}, nope` },
      'operation_id',
      /UUIDs.*'nope' is not one/
    ],
    ['operations not JSON', { operations: notJson }, 'operations', /must be JSON.*not valid JSON/],
    ['operations {}', { operations: '{}' }, 'operations', /must be JSON.*no "operations" array/],
    [
      'operations with an empty array',
      { operations: '{"operations":[]}' },
      'operations',
      /must be JSON.*empty/
    ],
    ['operations []', { operations: '[]' }, 'operations', /must be JSON.*empty/],
    ['operations an item without id', { operations: withoutId }, 'operations', /item 0.*UUID "id"/],
    ['project_id My_Project', { project_id: 'My_Project' }, 'project_id', /lower-case.*1 to 60/],
    ['project_id of 61 chars', { project_id: sixtyOne }, 'project_id', /lower-case.*1 to 60/],
    ['branch_id with uppercase', { branch_id: 'br-Wispy' }, 'branch_id', /lower-case.*br-/],
    ['org_id with a dot', { org_id: 'org.x' }, 'org_id', /lower-case.*org-/],
    [
      'api_host http on a public host',
      { api_host: 'http://console.neon.tech/api/v2' },
      'api_host',
      /https.*'http:\/\/console\.neon\.tech' is not allowed/
    ],
    ['api_host ftp', { api_host: 'ftp://x' }, 'api_host', /https.*not allowed/],
    ['api_host not a url', { api_host: 'not a url' }, 'api_host', /base URL.*is not a URL/],
    [
      'api_host with credentials',
      { api_host: 'https://user:pass@console.neon.tech/api/v2' },
      'api_host',
      /base URL.*credentials/
    ],
    [
      'api_host with a query string',
      { api_host: 'https://console.neon.tech/api/v2?x=1' },
      'api_host',
      /base URL.*query/
    ],
    [
      'api_host with a fragment',
      { api_host: 'https://console.neon.tech/api/v2#x' },
      'api_host',
      /base URL.*fragment/
    ],
    [
      'api_host http on a look-alike of localhost',
      { api_host: 'http://localhost.evil.example/api/v2' },
      'api_host',
      /not allowed/
    ],
    ...(
      [
        ['a zero-width space', `${KEY}\u200b`],
        ['a letter outside Latin-1', `${KEY}ж`],
        ['an accented Latin-1 letter', `é${KEY}`],
        ['DEL', `${KEY}\u007f`],
        ['a NUL', `${KEY}\u0000x`]
      ] as const
    ).map(([what, key]): (typeof cases)[number] => [
      `api_key with ${what}`,
      { api_key: key },
      'api_key',
      /no HTTP header can carry/
    ]),
    ['comment_tag with --', { comment_tag: 'a--b' }, 'comment_tag', /no "--"/],
    ['comment_tag with <', { comment_tag: 'a<b' }, 'comment_tag', /letters, digits/],
    ['comment_tag too long', { comment_tag: 'x'.repeat(101) }, 'comment_tag', /up to 100/],
    [
      'watch_job with wait false (a post step that looks once is no gate)',
      { watch_job: 'true', wait: 'false' },
      'watch_job',
      /while input 'wait' is false/
    ]
  ];

  it.each(cases)('refuses %s', (_what, values, name, form) => {
    const error = inputErrorOf({ api_key: KEY, ...values });
    expect(error.name).toBe('InputError');
    expect(error.message).toContain(`'${name}'`);
    expect(error.message).toMatch(form);
  });

  // A bare `?` or `#` leaves URL.search / URL.hash empty, yet the href keeps it, so the base URL
  // would end in `?` or `#` and every request path appended to it would land in the query/fragment.
  it.each([
    ['an empty query', 'https://console.neon.tech/api/v2?'],
    ['an empty fragment', 'https://console.neon.tech/api/v2#']
  ])('refuses api_host with %s', (_what, value) => {
    const error = inputErrorOf({ api_key: KEY, api_host: value });
    expect(error.message).toContain("'api_host'");
    expect(error.message).toMatch(/must not have a query or a fragment/);
  });

  it.each([
    'https://user:s3cret-pw@console neon.tech/api/v2',
    'https://s3cret-pw@console neon.tech/api/v2',
    'user:s3cret-pw@console neon.tech',
    'https://user:s3cret-pw/x@console neon.tech/api/v2'
  ])('does not quote a password from a malformed api_host (%s)', (value) => {
    const error = inputErrorOf({ api_key: KEY, api_host: value });
    expect(error.message).toContain("'api_host'");
    expect(error.message).not.toContain('s3cret');
  });

  it('shows where a malformed api_host points, without its credentials', () => {
    const error = inputErrorOf({
      api_key: KEY,
      api_host: 'https://user:s3cret-pw@console neon.tech/api/v2'
    });
    expect(error.message).toContain("'https://***@console neon.tech/api/v2' is not a URL");
  });

  it('never shows the api key in any of those messages', () => {
    const messages = cases.map(([, values]) => inputErrorOf({ api_key: KEY, ...values }).message);
    expect(messages).toHaveLength(cases.length);
    for (const message of messages) {
      expect(message).not.toContain(KEY);
      expect(message).not.toContain('Zq7xK9distinctive');
      expect(message).not.toContain('second-half');
    }
  });
});

describe('readSettings: the schema review', () => {
  const BRANCH = 'br-wispy-meadow-118737';
  it('reads compare_schema, fail_on_destructive and the database compared', () => {
    expect(settingsOf({ branch_id: BRANCH, compare_schema: 'true' })).toMatchObject({
      compareSchema: true,
      failOnDestructive: false
    });
    const asked = { create_branch: 'preview/pr-7', compare_schema: 'true', database_name: 'app' };
    expect(settingsOf({ ...asked, fail_on_destructive: 'true' })).toMatchObject({
      compareSchema: true,
      failOnDestructive: true,
      databaseName: 'app'
    });
  });

  it.each([
    [
      'compare_schema without a branch',
      { compare_schema: 'true' },
      'compare_schema',
      /needs a branch to compare with its parent: set input 'branch_id', or input 'create_branch'\./
    ],
    [
      'compare_schema with delete_branch',
      { compare_schema: 'true', delete_branch: 'x' },
      'compare_schema',
      /needs a branch/
    ],
    [
      'fail_on_destructive without compare_schema',
      { branch_id: BRANCH, fail_on_destructive: 'true' },
      'fail_on_destructive',
      /needs input 'compare_schema': without a review there is nothing to fail on/
    ],
    [
      'database_name alone',
      { branch_id: BRANCH, database_name: 'app' },
      'database_name',
      /is read only with input 'create_branch' or input 'compare_schema', and neither is set/
    ]
  ])('refuses %s, naming the input', (_what, values, name, words) => {
    const error = inputErrorOf({ api_key: KEY, ...values });
    expect(error.input).toBe(name);
    expect(error.message).toMatch(words);
  });
});

describe('readSettings from the runner (INPUT_* through @actions/core)', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it('keeps the documented semantics: trimmed values, booleans as core.getBooleanInput reads them, empty = default', () => {
    Object.assign(process.env, {
      INPUT_API_KEY: `  ${KEY}\n`,
      INPUT_WAIT: ' False ',
      INPUT_FAIL_FAST: 'TRUE',
      INPUT_SUMMARY: 'true',
      INPUT_TIMEOUT: ' 90s ',
      INPUT_INTERVAL: '',
      INPUT_OPERATION_ID: ` ${OP_A},\n${OP_B} `
    });
    const settings = readSettings((name) => core.getInput(name, { trimWhitespace: false }), mask);
    expect(settings).toMatchObject({
      apiKey: KEY,
      wait: false,
      policy: { failFast: true },
      summary: true,
      timeoutMs: 90_000,
      intervalMs: 5000,
      operationIds: [OP_A, OP_B]
    });
  });

  it('names the input of a switch that is neither', () => {
    Object.assign(process.env, { INPUT_API_KEY: KEY, INPUT_COMMENT_ON_PR: 'maybe' });
    expect(() =>
      readSettings((name) => core.getInput(name, { trimWhitespace: false }), mask)
    ).toThrow(
      "Input 'comment_on_pr' must be true or false (true, True, TRUE, false, False or FALSE); got 'maybe'."
    );
  });
});

describe('readSettings since', () => {
  const NOW = Date.parse('2026-11-26T12:00:00Z');

  it.each([
    ['2026-11-26T10:00:00Z', Date.parse('2026-11-26T10:00:00Z')],
    ['2026-11-25T10:00:00.123+01:00', Date.parse('2026-11-25T10:00:00.123+01:00')],
    ['2026-11-20', Date.parse('2026-11-20')],
    // ISO 8601's basic format: dates, not 20 million seconds.
    ['20261125', Date.parse('2026-11-25')],
    ['20261125T100000Z', Date.parse('2026-11-25T10:00:00Z')],
    ['20261125T1000Z', Date.parse('2026-11-25T10:00Z')],
    ['20261125T100000.5+0130', Date.parse('2026-11-25T10:00:00.5+01:30')],
    ['2h', NOW - 7_200_000],
    ['7d', NOW - 7 * 86_400_000],
    ['1h30m', NOW - 5_400_000]
  ])('reads %j', (value, expected) => {
    expect(sinceInput(value, NOW)).toBe(expected);
  });

  it('is unset when empty', () => {
    expect(settingsOf({}).sinceMs).toBeUndefined();
  });

  it.each([
    'yesterday',
    'Nov 26',
    '2026-13-45T00:00:00Z',
    '20261345',
    '2026112',
    '20261125T10',
    '400d',
    '2020-01-01T00:00:00Z',
    '-2h'
  ])('refuses %j, naming the input and the forms', (value) => {
    expect(() => sinceInput(value, NOW)).toThrow(
      /^Input 'since' must be an ISO 8601 time .*or a duration back from now such as 2h or 7d/
    );
  });
});

describe('readSettings since without a unit', () => {
  it.each(['90', '3600', '1.5', '202611'])(
    'refuses the bare number %j and says it has no unit',
    (value) => {
      expect(() => sinceInput(value, Date.parse('2026-11-26T12:00:00Z'))).toThrow(
        /^Input 'since' must be .*20261126.* such as 2h or 7d.*a number without a unit\.$/
      );
    }
  );

  it('refuses it from the step too, before any request', () => {
    expect(() => settingsOf({ since: '86400' })).toThrow(/Input 'since'.*without a unit/);
  });
});

describe('readSettings secrets', () => {
  it('asks to mask the key and the database password, even when another input is wrong', () => {
    masked.length = 0;
    expect(() =>
      readSettings(
        reader({
          api_key: ` ${KEY} `,
          database_url: 'postgresql://app:s3cr3t-pass@db.example.com/neondb',
          timeout: 'soon'
        }),
        mask
      )
    ).toThrow(InputError);
    expect(masked).toEqual(expect.arrayContaining([KEY, 's3cr3t-pass']));
  });
});
