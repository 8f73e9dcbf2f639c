import { render } from 'preact';
import { Login } from './Login.tsx';
import { SetUp } from './SetUp.tsx';
import { Shell } from './Shell.tsx';
import './styles.css';

/** One page per path: /dashboard/setup (from an invite), /dashboard/login, and /dashboard once signed in. */
function page() {
  switch (location.pathname.replace(/\/+$/, '')) {
    case '/dashboard/setup':
      return <SetUp />;
    case '/dashboard/login':
      return <Login />;
    default:
      return <Shell />;
  }
}

const root = document.getElementById('app');
if (root) render(page(), root);
