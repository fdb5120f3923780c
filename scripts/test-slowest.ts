/**
 * `npm run test:slowest`: the ten slowest test files of a Jest run, as the Markdown table that
 * CONTRIBUTING's "Testing" section keeps, so that a file that grows slow is seen. It reads the
 * results Jest wrote with `--json --outputFile=FILE` (the npm script runs `npm test` that way first;
 * `node .build/scripts/test-slowest.js FILE [COUNT]` reads an earlier run's).
 *
 * The times are Jest's per file: wall time from the file's start to its end, in a worker that shares
 * the machine with the others, so they move with how busy the machine is; compare files within one
 * run, and say how busy it was (`uptime`).
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

/** The part of Jest's `--json` results read here. */
interface JestResults {
  startTime: number;
  numTotalTests: number;
  testResults: Array<{
    name: string;
    startTime: number;
    endTime: number;
    assertionResults: unknown[];
  }>;
}

export function slowestTable(results: JestResults, root: string, count = 10): string {
  const files = results.testResults
    .map((file) => ({
      name: relative(root, file.name),
      seconds: (file.endTime - file.startTime) / 1000,
      tests: file.assertionResults.length
    }))
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, count);
  const end = Math.max(...results.testResults.map((file) => file.endTime));
  return [
    '| file | s | tests |',
    '| --- | --: | --: |',
    ...files.map((file) => `| \`${file.name}\` | ${file.seconds.toFixed(1)} | ${file.tests} |`),
    '',
    `The whole run: ${((end - results.startTime) / 1000).toFixed(1)} s, ` +
      `${results.testResults.length} files, ${results.numTotalTests} tests.`
  ].join('\n');
}

const [file, count] = process.argv.slice(2);
if (!file) {
  console.error('Usage: node .build/scripts/test-slowest.js JEST_JSON_RESULTS [COUNT]');
  process.exit(2);
}
const results = JSON.parse(readFileSync(file, 'utf8')) as JestResults;
console.log(slowestTable(results, process.cwd(), count ? Number(count) : 10));
