/**
 * The script of the passkeys page (link-pages.ts, `<base>/passkeys`), as the browser runs it: plain
 * ES2020 with no dependency. The browser does the WebAuthn work: `PublicKeyCredential.parse…FromJSON`
 * reads the service's options and `toJSON()` writes the answer, so nothing here encodes a byte.
 *
 * Adding or removing a passkey needs the owner's proof in the request (ADR 45): the page asks for the
 * password (and, with a factor on, a code, a recovery code or one of the passkeys) and sends it
 * BEFORE the device is asked, so the device never makes a passkey the service would refuse. Every
 * API error code and every WebAuthn error becomes a sentence a person can act on.
 */
export const PASSKEY_PAGE_SCRIPT = `'use strict';
(function () {
  var main = document.querySelector('main[data-page="passkeys"]');
  if (!main) return;
  var api = main.getAttribute('data-api');
  var status = document.getElementById('status');
  var list = document.getElementById('passkeys');
  var account = document.getElementById('account');
  var password = document.getElementById('password');
  var code = document.getElementById('code');
  var recovery = document.getElementById('recovery');
  // A passkey's answer to a step-up challenge, proof for the next add or removal (used once).
  var passkeyProof = null;

  function say(text, ok) {
    status.textContent = text;
    status.className = ok ? 'ok' : 'problem';
  }

  function call(method, path, body) {
    var init = { method: method, headers: { accept: 'application/json' }, credentials: 'same-origin' };
    if (body !== undefined) {
      init.headers['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    return fetch(api + path, init).then(function (res) {
      return res.json().then(
        function (json) { return { status: res.status, body: json }; },
        function () { return { status: res.status, body: {} }; }
      );
    });
  }

  // The API's error codes, as sentences (the codes are the contract's, docs/api.md).
  var SENTENCES = {
    wrong_password: 'The password is wrong. Type the password of this account, then try again.',
    second_factor_required: 'Your account has a second factor on: type a current code from your authenticator app or one of your recovery codes, or press “Confirm with one of your passkeys”, then try again.',
    wrong_code: 'That code was not accepted: it is wrong, or was used already. Type the current code, or an unused recovery code.',
    unauthenticated: 'You are not signed in (or your session ended): sign in again, then come back here.',
    invalid_credentials: 'The passkey was not accepted: it may have been removed from your account. Sign in with your password instead.',
    not_found: 'That passkey is not on your account (any more). The list below shows the ones that are.',
    rate_limited: 'Too many tries in a short time. Wait a few minutes, then try again.',
    cross_site: 'The service refused a request that did not come from its own page. Reload this page and try again.',
    login_challenge_invalid: 'The login expired. Log in with your password again.'
  };

  function problem(answer) {
    var body = answer.body || {};
    if (answer.status === 400 && body.code === 'validation' && body.issues && body.issues.length) {
      var issue = body.issues[0];
      if (issue.path === 'password') return 'Type your password first: adding or removing a passkey needs it.';
      if (issue.path === 'response') return 'The service did not accept what the device made (the request may have expired). Nothing was added: try again.';
      return 'The form is not right: ' + issue.path + ' ' + issue.message + '.';
    }
    if (body.code && SENTENCES[body.code]) return SENTENCES[body.code];
    if (answer.status >= 500) return 'The service could not do it just now. Nothing was changed: try again in a moment.';
    return body.error || 'The service answered ' + answer.status + '. Please try again.';
  }

  // WebAuthn's errors (DOMException names), as sentences; the raw name stays out of sight.
  function deviceProblem(error, creating) {
    var name = error && error.name;
    if (name === 'NotAllowedError') return 'The passkey request was cancelled, timed out, or not allowed. Nothing was changed: try again when ready.';
    if (name === 'InvalidStateError') return creating ? 'This device holds a passkey for this account already. Use that one, or add a passkey on another device.' : 'The device is busy with another request. Try again.';
    if (name === 'AbortError') return 'The passkey request was interrupted before it finished. Try again.';
    if (name === 'SecurityError') return 'The browser does not allow passkeys at this address. Open the service at its own address (https, or localhost), then try again.';
    if (name === 'NotSupportedError') return 'This device cannot make the kind of passkey the service needs (one that stays on the device and verifies you).';
    if (name === 'ConstraintError') return 'This device cannot verify you: set up a PIN, fingerprint or face on it, then try again.';
    if (name === 'NotReadableError' || name === 'UnknownError') return 'The device reported a problem. Try again, or use another device.';
    if (name === 'TypeError') return 'The browser could not read the service’s passkey request. Reload the page and try again.';
    return 'The passkey could not be used. Try again, or use another device.';
  }

  function supported() {
    return typeof PublicKeyCredential === 'function' && typeof PublicKeyCredential.parseCreationOptionsFromJSON === 'function';
  }

  // The owner's proof as the form holds it: the password, and a 6-digit code, a recovery code or a passkey's answer.
  function proof() {
    var body = { password: password.value };
    var typed = code.value.trim();
    if (passkeyProof) body.passkey = passkeyProof;
    else if (/^[0-9][0-9 -]*$/.test(typed) && typed.replace(/[ -]/g, '').length === 6) body.code = typed;
    else if (typed !== '') body.recoveryCode = typed;
    return body;
  }

  // Proof is asked for before anything else: the device is never called for a request the service would refuse.
  function proofMissing() {
    if (password.value !== '') return false;
    say('Type your password first: adding or removing a passkey needs it.', false);
    password.focus();
    return true;
  }

  function spent() {
    passkeyProof = null;
    code.value = '';
  }

  function after(answer) {
    if (answer.body && answer.body.code === 'second_factor_required') code.focus();
    if (answer.body && (answer.body.code === 'wrong_code' || answer.body.code === 'wrong_password')) spent();
    say(problem(answer), false);
  }

  function refresh() {
    return call('GET', '/me').then(function (me) {
      list.textContent = '';
      if (me.status === 401) {
        account.textContent = 'Not signed in: sign in with a passkey, or log in, to add passkeys.';
        return;
      }
      if (me.status !== 200) return say(problem(me), false);
      account.textContent = 'Signed in as ' + me.body.user.email + '.';
      return call('GET', '/passkeys').then(function (answer) {
        if (answer.status !== 200) return say(problem(answer), false);
        answer.body.passkeys.forEach(function (p) {
          var item = document.createElement('li');
          var text = document.createElement('span');
          text.textContent = p.name + ' (added ' + p.createdAt.slice(0, 10) + (p.lastUsedAt ? ', last used ' + p.lastUsedAt.slice(0, 10) : ', never used') + ')';
          var remove = document.createElement('button');
          remove.type = 'button';
          remove.textContent = 'Remove ' + p.name;
          remove.addEventListener('click', function () { removePasskey(p); });
          item.appendChild(text);
          item.appendChild(document.createTextNode(' '));
          item.appendChild(remove);
          item.setAttribute('data-id', p.id);
          list.appendChild(item);
        });
      });
    });
  }

  function signIn() {
    if (!supported()) return say('This browser does not support passkeys.', false);
    say('Waiting for the passkey…', true);
    call('POST', '/passkeys/sign-in-options').then(function (answer) {
      if (answer.status !== 200) return say(problem(answer), false);
      var options = PublicKeyCredential.parseRequestOptionsFromJSON(answer.body.options);
      return navigator.credentials.get({ publicKey: options }).then(function (credential) {
        return call('POST', '/passkeys/sign-in', { response: credential.toJSON() });
      }, function (error) {
        say(deviceProblem(error, false), false);
        return null;
      }).then(function (result) {
        if (!result) return;
        if (result.status !== 200) return say(problem(result), false);
        say('Signed in as ' + result.body.user.email + '.', true);
        return refresh();
      });
    }).catch(function () {
      say('The service could not be reached. Check the connection and try again.', false);
    });
  }

  // A step-up with one of the account's passkeys: its answer goes as the proof of the next change.
  function confirmWithPasskey() {
    if (!supported()) return say('This browser does not support passkeys.', false);
    say('Waiting for one of your passkeys…', true);
    call('POST', '/passkeys/step-up-options').then(function (answer) {
      if (answer.status === 404) return say('No passkey is on your account yet: type a code from your authenticator app or a recovery code instead.', false);
      if (answer.status !== 200) return say(problem(answer), false);
      var options = PublicKeyCredential.parseRequestOptionsFromJSON(answer.body.options);
      return navigator.credentials.get({ publicKey: options }).then(function (credential) {
        passkeyProof = credential.toJSON();
        code.value = '';
        say('Confirmed with your passkey. Now add or remove a passkey (with your password).', true);
      }, function (error) {
        say(deviceProblem(error, false), false);
      });
    }).catch(function () {
      say('The service could not be reached. Check the connection and try again.', false);
    });
  }

  function showRecoveryCodes(codes) {
    var shown = document.getElementById('recovery-codes');
    shown.textContent = '';
    codes.forEach(function (c) {
      var item = document.createElement('li');
      item.textContent = c;
      shown.appendChild(item);
    });
    recovery.hidden = false;
  }

  function add(event) {
    event.preventDefault();
    if (!supported()) return say('This browser does not support passkeys.', false);
    if (proofMissing()) return;
    var name = document.getElementById('name').value;
    say('Checking it is you…', true);
    call('POST', '/passkeys/registration-options', proof()).then(function (answer) {
      if (answer.status !== 200) return after(answer);
      spent();
      say('Waiting for the authenticator…', true);
      var options = PublicKeyCredential.parseCreationOptionsFromJSON(answer.body.options);
      return navigator.credentials.create({ publicKey: options }).then(function (credential) {
        var body = { response: credential.toJSON() };
        if (name.trim() !== '') body.name = name;
        return call('POST', '/passkeys', body);
      }, function (error) {
        say(deviceProblem(error, true), false);
        return null;
      }).then(function (result) {
        if (!result) return;
        if (result.status !== 201) return say(problem(result), false);
        password.value = '';
        if (result.body.recoveryCodes) showRecoveryCodes(result.body.recoveryCodes);
        say('Passkey added: ' + result.body.passkey.name + '. Every other session of the account was signed out.', true);
        return refresh();
      });
    }).catch(function () {
      say('The service could not be reached. Check the connection and try again.', false);
    });
  }

  function removePasskey(p) {
    if (proofMissing()) return;
    say('Checking it is you…', true);
    call('DELETE', '/passkeys/' + encodeURIComponent(p.id), proof()).then(function (answer) {
      if (answer.status !== 200) return after(answer);
      spent();
      password.value = '';
      say('Passkey removed: ' + p.name + '. It signs in no more; every other session of the account was signed out.', true);
      return refresh();
    }).catch(function () {
      say('The service could not be reached. Check the connection and try again.', false);
    });
  }

  document.getElementById('sign-in').addEventListener('click', signIn);
  document.getElementById('step-up').addEventListener('click', confirmWithPasskey);
  document.getElementById('add-form').addEventListener('submit', add);
  refresh().catch(function () { say('The service could not be reached. Check the connection and try again.', false); });
})();
`;
