// The step's outputs as the runner reads them from `$GITHUB_OUTPUT`: for `npm run demo` and the
// end-to-end tests (`__tests__/helpers/run-action.ts`).

/** Parses `$GITHUB_OUTPUT`: `name<<delimiter` blocks (and plain `name=value` lines). */
export function parseOutputFile(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const [, name, delimiter] = /^([^=<]+)<<(.+)$/.exec(line) ?? [];
    if (name !== undefined && delimiter !== undefined) {
      const value: string[] = [];
      for (i++; i < lines.length && lines[i] !== delimiter; i++) value.push(lines[i] ?? '');
      outputs[name] = value.join('\n');
    } else if (line.includes('=')) {
      const at = line.indexOf('=');
      outputs[line.slice(0, at)] = line.slice(at + 1);
    }
  }
  return outputs;
}

/**
 * The outputs a run set, `name: value` a line (a value in `shown` replaced by its words), then how
 * many it left empty: most outputs are for a request, a branch or a database, which a run may lack.
 */
export function setOutputsText(
  outputs: Record<string, string>,
  shown: Record<string, string> = {}
): string {
  const set = Object.entries(outputs).filter(([, value]) => value !== '');
  const empty = Object.keys(outputs).length - set.length;
  const lines = set.map(([name, value]) => `${name}: ${shown[name] ?? value}`);
  if (empty > 0) lines.push(`(${empty} more ${empty === 1 ? 'is' : 'are'} empty in this run)`);
  return lines.join('\n');
}
