/**
 * The scheme and host of `site.page` as Prebid Server reads them (Go's `net/url.Parse`): the scheme is lower-cased,
 * the host is the authority after any user info (which must be valid userinfo), port included, and only present
 * after `//`; a scheme followed by a rootless part is an opaque URL, taken without further checks. A page that Go refuses
 * to parse gives `undefined`: Rich Audience then neither fills `site.domain` nor marks the imps secure.
 */
export interface PageUrl {
  scheme: string;
  host: string;
}

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;
/** Characters Go accepts unescaped in a host (RFC 3986 unreserved and sub-delims, plus a few it tolerates). */
const HOST_CHARS = /^[A-Za-z0-9\-._~!$&'()*+,;=:[\]<>"%\u0080-\uffff]*$/;

export function parsePageUrl(raw: string): PageUrl | undefined {
  const hash = raw.indexOf('#');
  const fragment = hash === -1 ? '' : raw.slice(hash + 1);
  let rest = hash === -1 ? raw : raw.slice(0, hash);
  if (/[\u0000-\u001f\u007f]/.test(rest) || !validEscapes(fragment)) return undefined;

  let scheme = '';
  const schemeMatch = SCHEME.exec(rest);
  if (schemeMatch) {
    scheme = schemeMatch[1]!.toLowerCase();
    rest = rest.slice(schemeMatch[0].length);
  } else if (rest.startsWith(':')) {
    return undefined; // "missing protocol scheme"
  }
  const query = rest.indexOf('?');
  if (query !== -1) rest = rest.slice(0, query);

  if (!rest.startsWith('/')) {
    // With a scheme, a rootless rest is an opaque URL ("mailto:x", "https:x%zz"): no host, returned as it is, its
    // escapes unchecked. Without one it is a relative path, whose first segment cannot hold a colon.
    if (scheme !== '') return { scheme, host: '' };
    if (rest.split('/')[0]!.includes(':')) return undefined;
    return validEscapes(rest) ? { scheme, host: '' } : undefined;
  }
  if (!rest.startsWith('//') || (scheme === '' && rest.startsWith('///'))) {
    return validEscapes(rest) ? { scheme, host: '' } : undefined;
  }
  const authorityEnd = rest.indexOf('/', 2);
  const authority = authorityEnd === -1 ? rest.slice(2) : rest.slice(2, authorityEnd);
  const path = authorityEnd === -1 ? '' : rest.slice(authorityEnd);
  const at = authority.lastIndexOf('@');
  const host = parseHost(authority.slice(at + 1));
  if (host === undefined || (at !== -1 && !validUserinfo(authority.slice(0, at))) || !validEscapes(path)) return undefined;
  return { scheme, host };
}

/**
 * Go's `validUserinfo` (RFC 3986's unreserved, sub-delims, ":" and "%", plus "@"), then the user and password
 * unescaped: any other character ("net/url: invalid userinfo") or a bad escape is a parse error.
 */
function validUserinfo(userinfo: string): boolean {
  return /^[A-Za-z0-9\-._~!$&'()*+,;=:%@]*$/.test(userinfo) && validEscapes(userinfo);
}

function parseHost(host: string): string | undefined {
  if (host.startsWith('[')) {
    const close = host.lastIndexOf(']');
    if (close === -1) return undefined; // "missing ']' in host"
    if (!validPort(host.slice(close + 1))) return undefined;
  } else {
    const colon = host.lastIndexOf(':');
    if (colon !== -1 && !validPort(host.slice(colon))) return undefined;
  }
  if (!HOST_CHARS.test(host) || /%(?![0-9A-Fa-f]{2})/.test(host) || /%(?!25)[0-7][0-9A-Fa-f]/.test(host)) return undefined;
  return decodeHost(host);
}

/** Empty, or a colon followed by digits only. */
function validPort(port: string): boolean {
  return port === '' || /^:[0-9]*$/.test(port);
}

function validEscapes(text: string): boolean {
  return !/%(?![0-9A-Fa-f]{2})/.test(text);
}

/** Percent-escapes decoded; a sequence that is not UTF-8 (Go keeps the raw bytes) is left as written. */
function decodeHost(host: string): string {
  try {
    return decodeURIComponent(host);
  } catch {
    return host;
  }
}
