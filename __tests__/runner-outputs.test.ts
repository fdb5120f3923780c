import { describe, expect, it } from '@jest/globals';
import { parseOutputFile, setOutputsText } from '../scripts/runner-outputs.js';

// What `npm run demo` prints of the outputs (issue 44, item 20: 25 lines, 17 of them empty).
describe("the demo's outputs", () => {
  const file = [
    'status<<ghadelimiter_1',
    'finished',
    'ghadelimiter_1',
    'summary<<ghadelimiter_2',
    '### ✅ Neon operations',
    '',
    'two lines',
    'ghadelimiter_2',
    'branch_id<<ghadelimiter_3',
    '',
    'ghadelimiter_3',
    'created<<ghadelimiter_4',
    '',
    'ghadelimiter_4',
    ''
  ].join('\n');

  it('reads the runner file, values of several lines included', () => {
    expect(parseOutputFile(file)).toEqual({
      status: 'finished',
      summary: '### ✅ Neon operations\n\ntwo lines',
      branch_id: '',
      created: ''
    });
  });

  it('shows the set ones and counts the empty ones', () => {
    expect(setOutputsText(parseOutputFile(file), { summary: '(as below)' })).toBe(
      'status: finished\nsummary: (as below)\n(2 more are empty in this run)'
    );
  });
});
