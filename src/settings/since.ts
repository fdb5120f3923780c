/** `since`: when the summary's recent operations start, an ISO 8601 time or a duration back from now. */
import { parseDuration, YEAR_MS } from '../util/duration.js';
import { type Field, invalid, readField } from './fields.js';

const ISO_TIME =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;
/** ISO 8601's basic format (20261125, 20261125T100000Z), rewritten in the extended one above. */
const ISO_BASIC = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2}(?:\.\d+)?)?(Z|[+-]\d{4})?)?$/i;

/** Epoch ms of an ISO 8601 time in either format, else NaN. */
function isoTime(value: string): number {
  const text = value.replace(ISO_BASIC, (_, y, mo, d, h, mi, sec, zone = '') => {
    const time = h ? `T${h}:${mi}${sec ? `:${sec}` : ''}` : '';
    return `${y}-${mo}-${d}${time}${zone.replace(/^([+-]\d\d)(\d\d)$/, '$1:$2')}`;
  });
  return ISO_TIME.test(text) ? Date.parse(text) : NaN;
}

const SINCE_FORM =
  'an ISO 8601 time such as 2026-11-26T10:00:00Z or 20261126 (for example ${{ github.event.pull_request.created_at }}) ' +
  'or a duration back from now such as 2h or 7d, within the last year';

/**
 * `since`: an ISO 8601 time (e.g. a pull request's created_at) or a duration back from now. A bare
 * number is neither (`20261125` is a date; `90` would be seconds only for `timeout`), so it is refused.
 */
export function sinceInput(value: string, now: number): number | undefined {
  const field: Field = { value, name: 'since' };
  const bare = /^\d+(\.\d+)?$/.test(value);
  const back = bare ? undefined : parseDuration(value);
  const at = back !== undefined ? now - back : isoTime(value);
  const unitless = `must be ${SINCE_FORM}; got '${value}', a number without a unit.`;
  if (bare && Number.isNaN(at)) throw invalid(field, unitless);
  // The API keeps operations for about 6 months.
  const recent = now - at <= YEAR_MS && at <= now + 86_400_000;
  return readField(field, undefined, () => (recent ? at : undefined), SINCE_FORM);
}
