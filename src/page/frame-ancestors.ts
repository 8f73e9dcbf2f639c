import { hashToken, isUserSessionTokenShaped } from '../integrators/tokens.ts';
import type { Db } from '../platform/db/db.ts';
import { firstRow, qb } from '../platform/db/query-builder.ts';

const SESSION_ID = /^ses_[A-Za-z0-9]{1,60}$/;
const ORIGIN = /^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$|^https?:\/\/\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

/**
 * The origins allowed to frame the page for this token or session: the integrator's allowed origins
 * (the only ones that may frame it). A lapsed token still names its integrator, so the "session expired" state shows inside
 * the integrator's frame instead of a browser error. undefined: no session has this token or id.
 */
export async function frameAncestorsFor(
  db: Db,
  token: string | undefined,
  sessionId: string | undefined,
): Promise<string[] | undefined> {
  // Values that cannot be a token or a session id name nothing, and are not looked up.
  const tokenHash = token !== undefined && isUserSessionTokenShaped(token) ? hashToken(token) : null;
  if (!tokenHash && !(sessionId !== undefined && SESSION_ID.test(sessionId))) return undefined;
  const row = await firstRow(
    db,
    qb
      .selectFrom('sessions as s')
      .innerJoin('integrators as i', 'i.id', 's.integrator_id')
      .select('i.allowed_origins')
      .where(tokenHash ? 's.token_hash' : 's.id', '=', tokenHash ?? sessionId!)
      .limit(1)
      .$narrowType<{ allowed_origins: string[] }>(),
    { prepare: tokenHash ? 'page-frame-ancestors-by-token' : 'page-frame-ancestors-by-session' },
  );
  // Origins are normalised when the operator sets them; this keeps anything else out of the header.
  return row?.allowed_origins.filter(isOrigin);
}

export function isOrigin(value: string): boolean {
  return ORIGIN.test(value);
}
