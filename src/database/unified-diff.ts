/**
 * A unified diff (`diff -u`, `git diff`) read into its hunks. Only the hunks are read: file headers
 * (`---`, `+++`, `Index:`, `diff --git`) and `\ No newline at end of file` are skipped. A hunk's
 * lines are counted by its `@@ -a,b +c,d @@` header, so a removed line that starts with `--` (a
 * pg_dump comment) is never taken for a file header.
 */

export interface DiffLine {
  op: ' ' | '-' | '+';
  text: string;
}

export interface Hunk {
  lines: DiffLine[];
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** The hunks of `diff`, in order; none for an empty or unreadable text. Any line ending is read. */
export function readUnifiedDiff(diff: string): Hunk[] {
  const lines = diff.split(/\r\n|\r|\n/);
  const hunks: Hunk[] = [];
  let i = 0;
  while (i < lines.length) {
    const header = HUNK_HEADER.exec(lines[i] ?? '');
    i++;
    if (!header) continue;
    const hunk: Hunk = { lines: [] };
    let oldLeft = Number(header[2] ?? 1);
    let newLeft = Number(header[4] ?? 1);
    while (i < lines.length && (oldLeft > 0 || newLeft > 0)) {
      const line = lines[i] ?? '';
      const op = line.charAt(0);
      // A context line whose single space a mail or an editor trimmed away is still context.
      if (line === '' || op === ' ') {
        hunk.lines.push({ op: ' ', text: line.slice(1) });
        oldLeft--;
        newLeft--;
      } else if (op === '-' && oldLeft > 0) {
        hunk.lines.push({ op: '-', text: line.slice(1) });
        oldLeft--;
      } else if (op === '+' && newLeft > 0) {
        hunk.lines.push({ op: '+', text: line.slice(1) });
        newLeft--;
      } else if (op !== '\\') break; // shorter than its header said: the hunk ends here
      i++;
    }
    hunks.push(hunk);
  }
  return hunks;
}
