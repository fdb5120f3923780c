/**
 * A `sweep_branches` pattern, matched against a branch's WHOLE name, case-sensitively (names are):
 * `*` is any run of characters, slashes included; `{pr}` is the number of the branch's pull request
 * (digits, no leading zero), and gives that number. Every other character stands for itself, regular
 * expression metacharacters included. `{pr}` written twice means the same number twice.
 */
export interface BranchPattern {
  text: string;
  /** The match, with the pull request's number when `{pr}` is in the pattern; undefined when it does not match. */
  match(name: string): PatternMatch | undefined;
}

export interface PatternMatch {
  pr?: number;
}

/** Why a pattern was refused, worded to follow the input's name ("must be …; <why>"). */
export class PatternError extends Error {
  override name = 'PatternError';
}

export const PATTERN_FORM =
  "a branch name pattern such as preview/* or preview/pr-{pr} (* any characters, {pr} the pull request's number)";

/** A pull request's number as `{pr}` and the `github-pr-number` annotation write it: 1 to 10 digits, no leading zero. */
export const PR_NUMBER = /^[1-9]\d{0,9}$/;

const PLACEHOLDER = /\{([^{}]*)\}/g;

/** The pattern, or a `PatternError` saying what is wrong with it. */
export function compileBranchPattern(text: string): BranchPattern {
  if (text.trim() === '') throw new PatternError('it is empty');
  const unknown = [...text.matchAll(PLACEHOLDER)].find((m) => m[1] !== 'pr');
  if (unknown) throw new PatternError(`${unknown[0]} is not a placeholder: only {pr} is`);
  let prSeen = false;
  const source = text
    .split(/(\{pr\}|\*)/)
    .map((part) => {
      if (part === '*') return '.*?';
      if (part !== '{pr}') return escapeRegExp(part);
      const group = prSeen ? '\\k<pr>' : '(?<pr>[1-9]\\d{0,9})';
      prSeen = true;
      return group;
    })
    .join('');
  // `*` takes as little as it can, so a `{pr}` beside it takes every digit (`*{pr}` on `abc123` is 123).
  const regExp = new RegExp(`^${source}$`, 's');
  return {
    text,
    match(name) {
      const found = regExp.exec(name);
      if (!found) return undefined;
      const pr = found.groups?.pr;
      return pr === undefined ? {} : { pr: Number(pr) };
    }
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A pattern for the branches named like `name`, to suggest a sweep: its last run of digits
 * becomes `{pr}` (`preview/pr-11` → `preview/pr-{pr}`), else what follows its last slash becomes
 * `*` (`preview/login-page` → `preview/*`); undefined when neither fits.
 */
export function patternLike(name: string): string | undefined {
  const digits = /[1-9]\d{0,9}(?!.*\d)/s.exec(name);
  if (digits && !/\d$/.test(name.slice(0, digits.index)))
    return `${name.slice(0, digits.index)}{pr}${name.slice(digits.index + digits[0].length)}`;
  const slash = name.lastIndexOf('/');
  return slash > 0 && slash < name.length - 1 ? `${name.slice(0, slash + 1)}*` : undefined;
}
