import { describe, expect, it } from '@jest/globals';
import { renderJunit } from '../src/cli/junit.js';
import { renderComment, renderSummary } from '../src/report/summary.js';
import { WAIT_KINDS } from '../src/wait/mode.js';
import { modeWords } from '../src/wait/modes/index.js';
import { makeOperation, makeReport } from './helpers/builders.js';

// A kind added to `WAIT_KINDS` without its row in `MODES` fails tsc; this checks each row renders.
describe.each(WAIT_KINDS)('a report of a %s wait', (kind) => {
  const words = modeWords(kind);
  const failing = makeOperation({ status: 'error', error: 'compute did not respond' });
  const cases = {
    'with operations': makeReport({
      kind,
      operations: [makeOperation(), failing],
      status: 'error'
    }),
    'with none': makeReport({
      kind,
      operations: [],
      status: kind === 'operations' ? 'finished' : 'idle'
    })
  };

  it.each(Object.entries(cases))('%s renders a summary, a comment and JUnit', (_, report) => {
    const summary = renderSummary(report);
    expect(summary.split('\n')[0]).toContain(`Neon ${words.subject}: `);
    expect(renderComment(report)).toContain(`Neon ${words.subject}: `);
    const junit = renderJunit(report);
    expect(junit).toMatch(/^<\?xml .*<\/testsuites>\n$/s);
    // An empty suite fails some CI (Jenkins): with no operation, one passing case stands for the wait.
    expect(junit.match(/<testcase /g)?.length).toBe(
      Math.max(1, report.targets[0].operations.length)
    );
    if (report.targets[0].operations.length > 0) {
      expect(summary).toContain(`#### ${words.heading} (`);
      expect(junit).toContain('compute did not respond');
    } else if (words.none) expect(summary).toContain(words.none);
  });
});

it('names the compute an endpoint wait followed beside the project', () => {
  const report = makeReport({
    kind: 'endpoint',
    endpointId: 'ep-cool-darkness-123456',
    status: 'idle'
  });
  const summary = renderSummary(report);
  expect(summary).toMatch(/^### ✅ Neon compute activity: idle after 1m15s$/m);
  expect(summary).toContain(
    'Project <code>spring-example-302709</code> · compute <code>ep-cool-darkness-123456</code> · '
  );
});
