// The action's outputs and the command's `--json` share one bound and one redaction (src/outputs.ts).
import { afterEach, describe, expect, it } from '@jest/globals';
import { OUTPUTS, outputText } from '../src/outputs.js';
import { clearSecrets, registerSecret } from '../src/util/redact.js';

const output = (name: string) => OUTPUTS.find((o) => o.name === name)!;
const op = (more: Record<string, unknown> = {}) => ({
  id: '6f0b3b7e-1d2c-4b7a-9a57-0c7c1f6f1e11',
  project_id: 'p-1',
  action: 'create_branch',
  status: 'finished',
  ...more
});

afterEach(clearSecrets);

describe("the action's outputs (issue 30, classes 7 and 13)", () => {
  it('stay bounded whatever the shape: a 400,000-number array is cut, the known fields kept', () => {
    const samples = Array.from({ length: 400_000 }, (_, i) => i);
    for (const name of ['operation', 'operations']) {
      const value = name === 'operation' ? op({ samples }) : [op({ samples }), op()];
      const text = outputText(output(name), value);
      expect(text.length).toBeLessThan(1_100_000);
      const first: unknown = [JSON.parse(text) as unknown].flat()[0];
      expect(first).toMatchObject({ action: 'create_branch', status: 'finished' });
    }
  });

  it('redact values, never the JSON: a short secret does not rewrite a key', () => {
    registerSecret('status');
    const text = outputText(output('operation'), op({ error: 'bad status' }));
    expect(JSON.parse(text)).toMatchObject({ status: 'finished', error: 'bad ***' });
  });
});
