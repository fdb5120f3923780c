// Where a JSON text stops being JSON, said without quoting it (it may hold a secret): the parser's
// own message quotes the text, and gives a position only for some errors.

/**
 * `line 2, column 14`: where the first character that no JSON text can continue with stands, or
 * `its end` when the text stops early; undefined when it is JSON.
 */
export function jsonErrorPlace(text: string): string | undefined {
  if (parses(text)) return undefined;
  // A text that stops early fails as its prefixes do; one with a wrong character fails from it
  // on. The longest prefix that only stops early ends just before that character.
  let good = 0; // a prefix of a JSON text (the empty one is)
  let bad = text.length; // not one
  if (stopsEarly(text)) return 'its end';
  while (bad - good > 1) {
    const middle = Math.floor((good + bad) / 2);
    if (stopsEarly(text.slice(0, middle))) good = middle;
    else bad = middle;
  }
  const before = text.slice(0, good).split('\n');
  return `line ${before.length}, column ${before.at(-1)!.length + 1}`;
}

const parses = (text: string): boolean => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

/** Whether `prefix` could begin a JSON text: it parses, or fails only at its end. */
function stopsEarly(prefix: string): boolean {
  if (!prefix.trim()) return true;
  try {
    JSON.parse(prefix);
    return true;
  } catch (error) {
    const { message } = error as Error;
    if (/Unexpected end of JSON input/.test(message)) return true;
    const at = /at position (\d+)/.exec(message);
    return at !== null && Number(at[1]) >= prefix.length;
  }
}
