/**
 * The console's Content-Security-Policy: scripts, styles, fonts and API calls from the gateway's
 * own origin only, no inline script or style, no frames, no plugins, no form posts, no `<base>`.
 * Images may also be `data:` URIs (the stylesheet's small icons).
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');
