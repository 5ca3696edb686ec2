import { ErrorCode, GavelError } from './errors.js';

/**
 * Endpoint templates with macros, safe against server-side request forgery.
 *
 * A template such as `https://{{Host}}.example.com/bid?acct={{AccountId}}` may take values from bidder params. A
 * value that lands in the host may only be a DNS label fragment (letters, digits, hyphen: no dot, slash, colon, `@`),
 * and every other value is percent-encoded, so params can never move a call to another scheme, host or port.
 * `allows(uri)` re-checks a finished URL against the template; the core runs it on every call before sending.
 */
const MACRO = /\{\{\s*\.?([A-Za-z][A-Za-z0-9_]*)\s*\}\}/g;
const HOST_LABEL_VALUE = /^[A-Za-z0-9-]+$/;

export interface EndpointTemplate {
  readonly template: string;
  readonly protocol: string;
  expand(values: Record<string, string | number | undefined>): string;
  allows(uri: string): boolean;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function compileEndpoint(template: string): EndpointTemplate {
  const schemeEnd = template.indexOf('://');
  if (schemeEnd <= 0) throw new GavelError(ErrorCode.EndpointUnsafe, `endpoint "${template}" has no scheme`);
  const protocol = template.slice(0, schemeEnd).toLowerCase();
  if (protocol !== 'http' && protocol !== 'https') {
    throw new GavelError(ErrorCode.EndpointUnsafe, `endpoint "${template}" must use http or https`);
  }
  const afterScheme = template.slice(schemeEnd + 3);
  const authorityEnd = afterScheme.search(/[/?#]/);
  const authority = authorityEnd === -1 ? afterScheme : afterScheme.slice(0, authorityEnd);
  const literalHost = authority.replace(MACRO, 'x');
  if (authority.includes('{{') && !/[A-Za-z0-9-]\.[A-Za-z]/.test(authority.replace(MACRO, ''))) {
    throw new GavelError(ErrorCode.EndpointUnsafe, `endpoint "${template}": a host made only of macros could point anywhere`);
  }
  if (!/^[A-Za-z0-9.\-:[\]]+$/.test(literalHost)) {
    throw new GavelError(ErrorCode.EndpointUnsafe, `endpoint "${template}" has an invalid host`);
  }
  // The authority with each macro replaced by "one DNS label fragment": what a finished URL's host must match.
  // URL parsing drops a scheme's default port, so the pattern must not require it either.
  const comparableAuthority = authority.replace(protocol === 'https' ? /:443$/ : /:80$/, '');
  const authorityPattern = new RegExp(
    '^' + comparableAuthority.split(MACRO).map((part, i) => (i % 2 === 1 ? '[A-Za-z0-9-]+' : escapeRegExp(part.toLowerCase()))).join('') + '$',
  );

  // Without macros in the authority, a URL that starts with the literal scheme and authority followed by a path,
  // query or fragment delimiter has exactly that host: the common case costs a string comparison, not a URL parse.
  const literalPrefix = authority.includes('{{') ? undefined : `${protocol}://${authority.toLowerCase()}`;

  return {
    template,
    protocol,
    expand(values) {
      let inAuthority = true;
      let cursor = 0;
      let result = '';
      const authorityEndIndex = schemeEnd + 3 + authority.length;
      for (const match of template.matchAll(MACRO)) {
        const index = match.index ?? 0;
        inAuthority = index < authorityEndIndex;
        const raw = values[match[1]!];
        const value = raw === undefined || raw === null ? '' : String(raw);
        if (inAuthority && !HOST_LABEL_VALUE.test(value)) {
          throw new GavelError(ErrorCode.EndpointUnsafe, `value "${value}" for ${match[1]} is not allowed in the endpoint host`);
        }
        result += template.slice(cursor, index) + (inAuthority ? value : encodeURIComponent(value));
        cursor = index + match[0].length;
      }
      result += template.slice(cursor);
      if (!this.allows(result)) throw new GavelError(ErrorCode.EndpointUnsafe, `expanded endpoint "${result}" leaves the configured host`);
      return result;
    },
    allows(uri) {
      if (literalPrefix && uri.length > literalPrefix.length && '/?#'.includes(uri[literalPrefix.length]!)) {
        if (uri.startsWith(literalPrefix) || uri.slice(0, literalPrefix.length).toLowerCase() === literalPrefix) return true;
      }
      let url: URL;
      try {
        url = new URL(uri);
      } catch {
        return false;
      }
      if (url.protocol !== `${protocol}:` || url.username || url.password) return false;
      return authorityPattern.test(url.host.toLowerCase());
    },
  };
}
