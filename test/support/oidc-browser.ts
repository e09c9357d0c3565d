/**
 * A small cookie-keeping HTTP client that walks an OpenID Connect sign-in the way a browser does: it follows
 * redirects, fills in the provider's development login form (or presses its Cancel link), and submits the
 * provider's form_post page. Cookies follow the browser rules that matter here: host-wide (not per port),
 * Path, Max-Age=0 deletion, and SameSite=Lax cookies left off a cross-site POST.
 */

interface StoredCookie {
  value: string;
  path: string;
  sameSite: string;
}

const decode = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

export interface Visit {
  method: 'GET' | 'POST';
  url: string;
  status: number;
  location: string | null;
  setCookies: string[];
  body: string;
}

export class OidcBrowser {
  /** hostname -> cookie name -> cookie */
  private readonly jar = new Map<string, Map<string, StoredCookie>>();
  readonly visits: Visit[] = [];

  cookie(url: string, name: string): string | undefined {
    return this.jar.get(new URL(url).hostname)?.get(name)?.value;
  }

  setCookie(url: string, name: string, value: string, path = '/'): void {
    const host = new URL(url).hostname;
    if (!this.jar.has(host)) this.jar.set(host, new Map());
    this.jar.get(host)!.set(name, { value, path, sameSite: 'lax' });
  }

  deleteCookie(url: string, name: string): void {
    this.jar.get(new URL(url).hostname)?.delete(name);
  }

  async request(
    method: 'GET' | 'POST',
    url: string,
    form?: Record<string, string>,
    from?: string,
  ): Promise<Visit> {
    const target = new URL(url);
    const crossSite = from !== undefined && new URL(from).hostname !== target.hostname;
    const cookies = [...(this.jar.get(target.hostname)?.entries() ?? [])]
      .filter(([, c]) => target.pathname.startsWith(c.path))
      .filter(([, c]) => !(crossSite && method === 'POST' && c.sameSite !== 'none'))
      .map(([n, c]) => `${n}=${c.value}`);
    const headers: Record<string, string> = {};
    if (cookies.length) headers.cookie = cookies.join('; ');
    if (from) headers.origin = new URL(from).origin;
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(url, {
      method,
      headers,
      body: form ? new URLSearchParams(form).toString() : undefined,
      redirect: 'manual',
    });
    const setCookies = res.headers.getSetCookie();
    for (const line of setCookies) this.store(target, line);
    const location = res.headers.get('location');
    const visit: Visit = {
      method,
      url,
      status: res.status,
      location: location === null ? null : new URL(location, url).href,
      setCookies,
      body: await res.text(),
    };
    this.visits.push(visit);
    return visit;
  }

  private store(target: URL, line: string): void {
    const [pair, ...attrs] = line.split(';').map((p) => p.trim());
    const eq = pair.indexOf('=');
    const name = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    const attr = (n: string) =>
      attrs.find((a) => a.toLowerCase().startsWith(`${n}=`))?.slice(n.length + 1) ?? undefined;
    const host = target.hostname;
    if (!this.jar.has(host)) this.jar.set(host, new Map());
    const expires = attr('expires');
    const gone =
      attr('max-age') === '0' || value === '' || (expires !== undefined && Date.parse(expires) < Date.now());
    if (gone) {
      this.jar.get(host)!.delete(name);
      return;
    }
    this.jar.get(host)!.set(name, {
      value,
      path: attr('path') ?? '/',
      sameSite: (attr('samesite') ?? 'lax').toLowerCase(),
    });
  }

  /**
   * Starts at `start` and walks the sign-in: redirects, the provider's login form (as `login`, or Cancel when
   * `login` is undefined), and the form_post page. Stops after the service's callback has answered, and
   * returns that answer.
   */
  async signIn(
    start: string,
    login: string | undefined,
    callbackPath: string,
    tamper?: (callbackForm: Record<string, string>) => void,
  ): Promise<Visit> {
    let next: { method: 'GET' | 'POST'; url: string; form?: Record<string, string>; from?: string } = {
      method: 'GET',
      url: start,
    };
    for (let step = 0; step < 20; step++) {
      const visit = await this.request(next.method, next.url, next.form, next.from);
      if (new URL(visit.url).pathname === callbackPath) return visit;
      if (visit.location && visit.status >= 300 && visit.status < 400) {
        next = { method: 'GET', url: visit.location, from: visit.url };
        continue;
      }
      const form = /<form[^>]*action="([^"]+)"[^>]*>/i.exec(visit.body);
      if (!form)
        throw new Error(`unexpected page ${visit.status} at ${visit.url}: ${visit.body.slice(0, 300)}`);
      const action = new URL(decode(form[1]), visit.url).href;
      const fields: Record<string, string> = {};
      for (const m of visit.body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"\/?>/g))
        fields[m[1]] = decode(m[2]);
      if (fields.prompt === 'login') {
        if (login === undefined) {
          const cancel = /<a href="([^"]+)">\[ Cancel \]<\/a>/.exec(visit.body);
          if (!cancel) throw new Error('no Cancel link on the login page');
          next = { method: 'GET', url: new URL(decode(cancel[1]), visit.url).href, from: visit.url };
        } else {
          next = {
            method: 'POST',
            url: action,
            form: { ...fields, login, password: 'any' },
            from: visit.url,
          };
        }
        continue;
      }
      // The provider's form_post page (auto-submitted by its script in a browser).
      tamper?.(fields);
      next = { method: 'POST', url: action, form: fields, from: visit.url };
    }
    throw new Error('sign-in did not reach the callback in 20 steps');
  }
}
