/**
 * The pages the mailed links open when no front end of the operator's takes them (no `verifyUrl` or
 * `resetUrl` configured): `<base>/verify-email?token=…` confirms an address, `<base>/reset-password?token=…`
 * sets a new password. Plain HTML, one same-origin script and one stylesheet (link-page-script.ts),
 * a policy that lets nothing else load or run, labels, and a live region that announces each
 * outcome and takes the focus. The pages themselves hold no token: the script reads it from the address.
 */
import { createHash } from 'node:crypto';
import type { DocumentRoute } from '@sl-accounts/service/http';
import { documentAnswer } from './document-answer.ts';
import { LINK_PAGE_SCRIPT, LINK_PAGE_STYLE } from './link-page-script.ts';
import { PASSKEY_PAGE_SCRIPT } from './passkey-page-script.ts';

/** Where the verification page is served, below the base path (the default target of a verification link). */
export const VERIFY_PAGE_PATH = '/verify-email';
/** Where the reset page is served, below the base path (the default target of a reset link). */
export const RESET_PAGE_PATH = '/reset-password';

/** Where the passkeys page is served, below the base path: sign in with a passkey, add one, list them. */
export const PASSKEYS_PAGE_PATH = '/passkeys';

/** Which pages to serve: those whose links point at the service, and the passkeys page. */
export interface LinkPagesOptions {
  readonly verify?: boolean;
  readonly reset?: boolean;
  readonly passkeys?: boolean;
}

/**
 * Scripts and styles from this origin only; the script talks to this origin only; nothing may frame
 * the pages (a password form), and no page that links out sends the token along.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  'img-src data:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const IMMUTABLE = 'public, max-age=31536000, immutable';
const hashOf = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 27);
const SCRIPT_PATH = `/link-pages/page.${hashOf(LINK_PAGE_SCRIPT)}.js`;
const STYLE_PATH = `/link-pages/page.${hashOf(LINK_PAGE_STYLE)}.css`;
const PASSKEY_SCRIPT_PATH = `/link-pages/passkeys.${hashOf(PASSKEY_PAGE_SCRIPT)}.js`;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function html(base: string, serviceName: string, page: 'verify' | 'reset' | 'passkeys', title: string, body: string, script = SCRIPT_PATH): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${escapeHtml(base + STYLE_PATH)}">
<title>${escapeHtml(`${title} · ${serviceName}`)}</title>
</head>
<body>
<main data-page="${page}" data-api="${escapeHtml(`${base}/api`)}">
<h1>${escapeHtml(title)}</h1>
${body}
<p id="status" role="status" aria-live="polite" aria-atomic="true" tabindex="-1"></p>
</main>
<script src="${escapeHtml(base + script)}"></script>
</body>
</html>
`;
}

const VERIFY_BODY = `<p>Press the button to confirm that the address this link was mailed to is yours (for a change of address: to move the account there).</p>
<form id="form" novalidate>
<button id="submit" type="submit">Confirm the address</button>
</form>`;

const RESET_BODY = `<p>Choose a new password for your account. Setting it signs out every session of the account.</p>
<form id="form" novalidate>
<label for="password">New password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required aria-describedby="password-hint password-error">
<p id="password-hint" class="hint">At least 8 characters.</p>
<p id="password-error" class="field-error"></p>
<label for="repeat">New password, again</label>
<input id="repeat" name="repeat" type="password" autocomplete="new-password" required aria-describedby="repeat-error">
<p id="repeat-error" class="field-error"></p>
<button id="submit" type="submit">Set the new password</button>
</form>`;

const PASSKEYS_BODY = `<p>A passkey signs in to your account without the password: your device keeps it and asks for your PIN, fingerprint or face.</p>
<p id="account"></p>
<button id="sign-in" type="button">Sign in with a passkey</button>
<h2>Your passkeys</h2>
<ul id="passkeys"></ul>
<form id="add-form" novalidate>
<p class="hint">Adding or removing a passkey needs proof that it is you, before your device is asked: your password and, when a second factor is on, a current code, a recovery code or one of your passkeys.</p>
<label for="password">Your password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<label for="code">Code from your authenticator app, or a recovery code (when a second factor is on)</label>
<input id="code" name="code" type="text" autocomplete="one-time-code" spellcheck="false">
<button id="step-up" type="button">Confirm with one of your passkeys</button>
<label for="name">Name of the new passkey</label>
<input id="name" name="name" type="text" maxlength="64" autocomplete="off">
<button id="add" type="submit">Add a passkey</button>
</form>
<section id="recovery" hidden>
<h2>Your recovery codes</h2>
<p>Write them down now: they are shown this once. Each one finishes a login once if you lose your passkeys.</p>
<ol id="recovery-codes"></ol>
</section>
<p class="hint">Adding or removing a passkey signs out every other session of the account.</p>`;

/** The page answer: revalidated on each visit, never framed, never a referrer. */
const pageAnswer = (text: string) =>
  documentAnswer('text/html; charset=utf-8', text, { 'content-security-policy': CONTENT_SECURITY_POLICY, 'cache-control': 'no-cache', 'referrer-policy': 'no-referrer' });

/**
 * The pages `options` asks for, under `basePath` (normalised), with their script and stylesheet at
 * content-hashed paths (the same under every mount, so a host's router that routes the root's paths
 * routes them), for `discoveryDocuments`.
 */
export function linkPages(basePath: string, serviceName: string, options: LinkPagesOptions): DocumentRoute[] {
  const pages: DocumentRoute[] = [];
  if (options.verify) {
    const text = html(basePath, serviceName, 'verify', 'Confirm your address', VERIFY_BODY);
    pages.push({ path: VERIFY_PAGE_PATH, render: () => pageAnswer(text) });
  }
  if (options.reset) {
    const text = html(basePath, serviceName, 'reset', 'Set a new password', RESET_BODY);
    pages.push({ path: RESET_PAGE_PATH, render: () => pageAnswer(text) });
  }
  const own: DocumentRoute[] = [];
  if (options.passkeys) {
    const text = html(basePath, serviceName, 'passkeys', 'Passkeys', PASSKEYS_BODY, PASSKEY_SCRIPT_PATH);
    own.push({ path: PASSKEYS_PAGE_PATH, render: () => pageAnswer(text) });
    own.push({ path: PASSKEY_SCRIPT_PATH, render: () => documentAnswer('text/javascript; charset=utf-8', PASSKEY_PAGE_SCRIPT, { 'cache-control': IMMUTABLE }) });
  }
  if (pages.length === 0 && own.length === 0) return pages;
  return [
    ...pages,
    ...own,
    { path: SCRIPT_PATH, render: () => documentAnswer('text/javascript; charset=utf-8', LINK_PAGE_SCRIPT, { 'cache-control': IMMUTABLE }) },
    { path: STYLE_PATH, render: () => documentAnswer('text/css; charset=utf-8', LINK_PAGE_STYLE, { 'cache-control': IMMUTABLE }) },
  ];
}
