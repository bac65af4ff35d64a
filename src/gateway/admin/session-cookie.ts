/** The dashboard's session cookie: its name, the Set-Cookie values, and reading it back. */
export interface SessionCookie {
  name: string;
  /** Set-Cookie for a new session. */
  set(value: string, maxAgeSeconds: number): string;
  /** Set-Cookie that makes the browser forget the session. */
  clear(): string;
  /** The session value the request carries, if any. */
  read(cookieHeader: string | undefined): string | undefined;
}

const MAX_COOKIE_HEADER = 8192;

/**
 * HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it), Path=/ (the page
 * and the API both need it). Behind an https public URL it is also Secure and takes the `__Host-`
 * prefix, which browsers honour only for a Secure, host-only cookie with Path=/.
 */
export function sessionCookie(publicUrl: string): SessionCookie {
  const secure = new URL(publicUrl).protocol === 'https:';
  const name = secure ? '__Host-gateway_admin' : 'gateway_admin';
  const attributes = `Path=/; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
  return {
    name,
    set: (value, maxAgeSeconds) => `${name}=${value}; Max-Age=${maxAgeSeconds}; ${attributes}`,
    clear: () => `${name}=; Max-Age=0; ${attributes}`,
    read(header) {
      if (header === undefined || header.length > MAX_COOKIE_HEADER) return undefined;
      for (const part of header.split(';')) {
        const at = part.indexOf('=');
        if (at !== -1 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
      }
      return undefined;
    },
  };
}
