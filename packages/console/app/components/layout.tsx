import type { ComponentChildren } from 'preact';
import { useLocation } from 'preact-iso';
import { signOut } from '../api';

const LINKS = [
  { href: '/console/sessions', label: 'Sessions' },
  { href: '/console/ask', label: 'Ask' },
  { href: '/console/documents', label: 'Documents' },
  { href: '/console/memory', label: 'Memory' },
  { href: '/console/agents', label: 'Agents' },
] as const;

function isCurrent(path: string, href: string): boolean {
  if (href === '/console/sessions')
    return path === '/console' || path === '/console/' || path.startsWith(href);
  return path.startsWith(href);
}

/** The frame of every signed-in page: a skip link, the navigation, sign out, and the page. */
export function Layout({ children }: { children: ComponentChildren }) {
  const { path } = useLocation();
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="container">
        <nav aria-label="Console">
          <ul>
            <li>
              <strong>A2A Fleet</strong>
            </li>
          </ul>
          <ul class="nav-links">
            {LINKS.map((link) => (
              <li key={link.href}>
                <a href={link.href} aria-current={isCurrent(path, link.href) ? 'page' : undefined}>
                  {link.label}
                </a>
              </li>
            ))}
            <li>
              <button type="button" class="secondary outline" onClick={() => signOut()}>
                Sign out
              </button>
            </li>
          </ul>
        </nav>
      </header>
      <main id="main" class="container" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
