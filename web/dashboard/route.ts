/**
 * Where the signed-in dashboard is: `#section/part/part?query`. Each section reads its own parts and query, so a
 * payment's page or a filtered list has an address a person can bookmark, share or open in a new tab.
 */

export interface Route {
  section: string;
  /** The parts after the section, decoded: `#payments/pay_1` → `['pay_1']`. */
  path: string[];
  query: URLSearchParams;
}

export function parseRoute(hash: string): Route {
  const text = hash.startsWith('#') ? hash.slice(1) : hash;
  const questionMark = text.indexOf('?');
  const pathText = questionMark === -1 ? text : text.slice(0, questionMark);
  const query = new URLSearchParams(questionMark === -1 ? '' : text.slice(questionMark + 1));
  const [section = '', ...path] = pathText
    .split('/')
    .filter((part) => part !== '')
    .map((part) => {
      try {
        return decodeURIComponent(part);
      } catch {
        return part;
      }
    });
  return { section, path, query };
}

/** The address of a place in the dashboard; query values that are empty or undefined are left out. */
export function href(
  section: string,
  path: readonly string[] = [],
  query: Record<string, string | undefined> | URLSearchParams = {},
): string {
  const parts = [section, ...path].map(encodeURIComponent).join('/');
  const entries =
    query instanceof URLSearchParams
      ? [...query.entries()]
      : Object.entries(query).filter(([, value]) => value);
  const search = new URLSearchParams(entries as [string, string][]).toString();
  return `#${parts}${search ? `?${search}` : ''}`;
}

/** Which section shows the list an API path names (the home page's figures link to API lists). */
const SECTION_OF_API_LIST: Record<string, string> = {
  payments: 'payments',
  tenants: 'tenants',
  payouts: 'payouts',
  events: 'developers',
};

/**
 * The dashboard page of an API list's link: `/api/dashboard/payments/?status=failed` → `#payments?status=failed`,
 * `/api/dashboard/payouts/held/` → `#payouts/held`. A link to no known list stays as it is.
 */
export function pageOf(apiLink: string): string {
  const url = new URL(apiLink, 'http://dashboard.invalid');
  const match = /^\/api\/dashboard\/(.*)$/.exec(url.pathname);
  if (!match?.[1]) return apiLink;
  const [list = '', ...rest] = match[1].split('/').filter((part) => part !== '');
  const section = SECTION_OF_API_LIST[list];
  if (!section) return apiLink;
  return href(section, section === 'developers' ? ['events', ...rest] : rest, url.searchParams);
}
