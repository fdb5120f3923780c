/** Shortens text to at most `max` characters (code points, so no emoji is cut in half), ending with `…`. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}
