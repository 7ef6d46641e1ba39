/**
 * The script of the mailed links' pages (link-pages.ts), as the browser runs it: one file for both
 * pages and every mount, so its content-hashed path is the same wherever the service is mounted.
 * Plain ES2020 with no dependency; it reads the API's path from the page (`data-api`) and the token
 * from the address, which it then drops from the address bar and the history (it is a secret).
 *
 * The verification page confirms only when its button is pressed, never on load: mail scanners and
 * link previews open links. The reset page checks that both passwords are the same; every other rule
 * (the bounds, the token) is the contract's, whose errors it shows as they come.
 */
export const LINK_PAGE_SCRIPT = `'use strict';
(function () {
  var main = document.querySelector('main[data-page]');
  if (!main) return;
  var api = main.getAttribute('data-api');
  var status = document.getElementById('status');
  var token = new URLSearchParams(location.search).get('token');
  if (token) history.replaceState(null, '', location.pathname);

  function say(text, ok) {
    status.textContent = text;
    status.className = ok ? 'ok' : 'problem';
  }

  // An outcome takes the focus (the status is focusable, tabindex=-1): the button that had it is
  // disabled or hidden by then, and the focus would fall to the body, leaving a keyboard user at the top.
  function settle(text, ok) {
    say(text, ok);
    status.focus();
  }

  function post(path, body) {
    return fetch(api + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
      credentials: 'same-origin',
    }).then(function (res) {
      return res.json().then(
        function (json) { return { status: res.status, body: json }; },
        function () { return { status: res.status, body: {} }; }
      );
    });
  }

  function problem(answer) {
    var body = answer.body || {};
    var issues = Array.isArray(body.issues) ? body.issues : [];
    if (issues.some(function (i) { return i.path === 'token'; })) {
      return 'This link is unknown, used or expired (links work once). Ask for a new one.';
    }
    return body.error || 'The service answered ' + answer.status + '. Please try again.';
  }

  function failed() {
    settle('The service could not be reached. Check the connection and try again.', false);
  }

  var form = document.getElementById('form');
  var submit = document.getElementById('submit');
  if (!token) {
    say('This address has no token. Open the link from the mail again.', false);
    submit.disabled = true;
    return;
  }

  if (main.getAttribute('data-page') === 'verify') {
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      submit.disabled = true;
      say('Confirming…', true);
      post('/email-verification/confirm', { token: token }).then(function (answer) {
        if (answer.status === 200 && answer.body.user) {
          form.hidden = true;
          settle('Confirmed: ' + answer.body.user.email + ' is the address of your account.', true);
        } else {
          submit.disabled = false;
          settle(problem(answer), false);
        }
      }, function () { submit.disabled = false; failed(); });
    });
    return;
  }

  var password = document.getElementById('password');
  var repeat = document.getElementById('repeat');
  var fieldError = { password: document.getElementById('password-error'), repeat: document.getElementById('repeat-error') };
  function mark(field, input, text) {
    fieldError[field].textContent = text;
    if (text) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
  }
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    mark('password', password, '');
    mark('repeat', repeat, '');
    if (password.value !== repeat.value) {
      mark('repeat', repeat, 'The two passwords differ.');
      say('The two passwords differ: type the same one twice.', false);
      repeat.focus();
      return;
    }
    submit.disabled = true;
    say('Setting the new password…', true);
    post('/password-reset/confirm', { token: token, newPassword: password.value }).then(function (answer) {
      submit.disabled = false;
      if (answer.status === 200) {
        form.hidden = true;
        settle('Your new password is set, and every session of the account has ended. Sign in with the new password.', true);
        return;
      }
      var issues = Array.isArray(answer.body.issues) ? answer.body.issues : [];
      var onPassword = issues.filter(function (i) { return i.path === 'newPassword'; });
      if (onPassword.length > 0) {
        mark('password', password, 'The password ' + onPassword[0].message + '.');
        say(problem(answer), false);
        password.focus();
      } else {
        settle(problem(answer), false);
      }
    }, function () { submit.disabled = false; failed(); });
  });
})();
`;

/** The pages' stylesheet: readable on a phone and a wide screen, and in dark mode. */
export const LINK_PAGE_STYLE = `:root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5; }
body { margin: 0; padding: 2rem 1rem; }
main { max-width: 28rem; margin: 0 auto; }
label { display: block; margin-top: 1rem; font-weight: 600; }
input { display: block; width: 100%; box-sizing: border-box; padding: 0.5rem; font: inherit; }
input[aria-invalid="true"] { outline: 2px solid #c62828; }
button { margin-top: 1.25rem; padding: 0.6rem 1.2rem; font: inherit; cursor: pointer; }
.hint, .field-error { margin: 0.25rem 0 0; font-size: 0.9rem; }
.field-error, .problem { color: #c62828; }
.ok { color: #2e7d32; }
#status { margin-top: 1.25rem; min-height: 1.5rem; }
`;
