import { render } from 'preact';
import { App, type Credentials } from './App.tsx';
import { applyTheme, type Embed, embedFromUrl, reportHeightToParent } from './embed.ts';
import './styles.css';

const STORAGE_KEY = 'rentpay:page-session';

/**
 * Takes the token and session id out of the address bar before anything else runs, so they do not stay in
 * history, bookmarks or screenshots. The hosted page keeps them in this tab's session storage so a reload
 * keeps working. Inside the SDK's iframe there is no session id (the SDK has only the token).
 */
function takeCredentials(params: URLSearchParams, embed: Embed | undefined): Credentials | undefined {
  const token = params.get('token');
  const sessionId = params.get('session_id');
  // Not params.size: Chrome 113+ and Safari 17+ only.
  if (location.search) history.replaceState(null, '', location.pathname);
  if (embed) return token ? { token, sessionId: undefined } : undefined;
  if (token !== null || sessionId !== null) {
    if (!token || !sessionId) return undefined;
    const credentials = { token, sessionId };
    try {
      sessionStorage.setItem(STORAGE_KEY, JSON.stringify(credentials));
    } catch {
      // Storage may be blocked in a third-party frame; the page still works until a reload.
    }
    return credentials;
  }
  try {
    const stored = sessionStorage.getItem(STORAGE_KEY);
    return stored ? (JSON.parse(stored) as Credentials) : undefined;
  } catch {
    return undefined;
  }
}

applyTheme();
const params = new URLSearchParams(location.search);
const embed = embedFromUrl(params);
const credentials = takeCredentials(params, embed);
if (!embed) reportHeightToParent();
const root = document.getElementById('app');
if (root) render(<App credentials={credentials} embed={embed} />, root);
