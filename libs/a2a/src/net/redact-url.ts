/** What stands in for a removed secret. */
export const REDACTED = 'REDACTED';

/** Long URLs are cut: a message is for a human, and a very long path is more likely to carry a token. */
const MAX_REDACTED_LENGTH = 256;

/**
 * A form of `url` that is safe to put in a log line or an error message: userinfo and fragment are
 * dropped, every query value is replaced by `REDACTED` (a parameter without `=` is replaced whole, since
 * a bare key may itself be the secret); scheme, host, port and path are kept. An unparseable input is
 * never echoed.
 *
 * Note that some webhook providers put their secret in the path (Slack, Discord); the path is kept
 * because it is what tells an operator which endpoint failed.
 * @publicApi
 */
export function redactUrl(url: string | URL): string {
  let parsed: URL;
  try {
    parsed = new URL(typeof url === 'string' ? url : url.href);
  } catch {
    return '[invalid URL]';
  }
  // Rebuilt from parts rather than with the setters, which are no-ops for some schemes (file:, opaque).
  if (!parsed.href.startsWith(`${parsed.protocol}//`)) {
    // Opaque (`mailto:`, `javascript:`, `data:` …): the whole rest may be anything, keep only the scheme.
    return `${parsed.protocol}…`;
  }
  let out = `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  if (parsed.search.length > 1) {
    const params = parsed.search
      .slice(1)
      .split('&')
      .filter((part) => part !== '')
      .map((part) => {
        const eq = part.indexOf('=');
        return eq === -1 ? REDACTED : `${part.slice(0, eq)}=${REDACTED}`;
      });
    if (params.length > 0) out += `?${params.join('&')}`;
  }
  return out.length > MAX_REDACTED_LENGTH ? `${out.slice(0, MAX_REDACTED_LENGTH)}…` : out;
}

const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi;

/** `text` with every URL in it redacted (a last line of defence: messages are built redacted). */
export function redactUrlsIn(text: string): string {
  return text.replace(URL_IN_TEXT, (match) => {
    // punctuation after a URL belongs to the sentence ("…/rpc: request failed")
    const trail = /[.,;:!?)\]]+$/.exec(match)?.[0] ?? '';
    return redactUrl(match.slice(0, match.length - trail.length)) + trail;
  });
}
