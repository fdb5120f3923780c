import { parse, type Property, type TestCase } from 'junit2json';

/** One test case as a JUnit reader (junit2json, on xml2js) sees it: outcome, message and body. */
export interface ReadCase {
  classname?: string;
  name?: string;
  time?: number;
  outcome: 'passed' | 'failure' | 'error' | 'skipped';
  type?: string;
  message?: string;
  body?: string;
  /** `<properties>`, by name. */
  properties?: Record<string, string | undefined>;
}

/** The JUnit file as a real JUnit reader parses it. */
export async function readJunit(xml: string) {
  const root = (await parse(xml)) as {
    tests?: number;
    failures?: number;
    errors?: number;
    // A case's `<properties>` are parsed as a suite's are, though the type leaves them out.
    testsuite?: Array<{ name?: string; testcase?: Array<TestCase & { properties?: Property[] }> }>;
  };
  const suite = root.testsuite?.[0];
  const cases: ReadCase[] = (suite?.testcase ?? []).map((c) => {
    const [kind, detail] = (['failure', 'error', 'skipped'] as const)
      .map((k) => [k, c[k]?.[0]] as const)
      .find(([, d]) => d) ?? ['passed', undefined];
    const d = detail as { message?: string; type?: string; inner?: string } | undefined;
    return {
      classname: c.classname,
      name: c.name,
      time: c.time,
      outcome: kind,
      ...(d?.type !== undefined && { type: d.type }),
      ...(d?.message !== undefined && { message: d.message }),
      ...(d?.inner !== undefined && { body: d.inner }),
      ...(c.properties && {
        properties: Object.fromEntries(c.properties.map((p) => [p.name, String(p.value)]))
      })
    };
  });
  return {
    tests: root.tests,
    failures: root.failures,
    errors: root.errors,
    suite: suite?.name,
    cases
  };
}
