/**
 * The script of the passkeys page (link-pages.ts, `<base>/passkeys`), as the browser runs it: plain
 * ES2020 with no dependency. The browser does the WebAuthn work: `PublicKeyCredential.parse…FromJSON`
 * reads the service's options and `toJSON()` writes the answer, so nothing here encodes a byte.
 * Every rule is the contract's, whose errors it shows as they come.
 */
export const PASSKEY_PAGE_SCRIPT = `'use strict';
(function () {
  var main = document.querySelector('main[data-page="passkeys"]');
  if (!main) return;
  var api = main.getAttribute('data-api');
  var status = document.getElementById('status');
  var list = document.getElementById('passkeys');
  var account = document.getElementById('account');

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

  function problem(answer) {
    var body = answer.body || {};
    return body.error || 'The service answered ' + answer.status + '. Please try again.';
  }

  function supported() {
    return typeof PublicKeyCredential === 'function' && typeof PublicKeyCredential.parseCreationOptionsFromJSON === 'function';
  }

  function refresh() {
    return call('GET', '/passkeys').then(function (answer) {
      list.textContent = '';
      if (answer.status === 401) {
        account.textContent = 'Not signed in: sign in with a passkey, or log in, to add passkeys.';
        return;
      }
      if (answer.status !== 200) return say(problem(answer), false);
      account.textContent = 'Signed in.';
      answer.body.passkeys.forEach(function (p) {
        var item = document.createElement('li');
        item.textContent = p.name + ' (added ' + p.createdAt.slice(0, 10) + (p.lastUsedAt ? ', last used ' + p.lastUsedAt.slice(0, 10) : ', never used') + ')';
        item.setAttribute('data-id', p.id);
        list.appendChild(item);
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
      }).then(function (result) {
        if (result.status !== 200) return say(problem(result), false);
        say('Signed in as ' + result.body.user.email + '.', true);
        return refresh();
      });
    }).catch(function (error) {
      say('No passkey was used (' + (error && error.name ? error.name : 'error') + ').', false);
    });
  }

  function add(event) {
    event.preventDefault();
    if (!supported()) return say('This browser does not support passkeys.', false);
    var name = document.getElementById('name').value;
    say('Waiting for the authenticator…', true);
    call('POST', '/passkeys/registration-options').then(function (answer) {
      if (answer.status !== 200) return say(problem(answer), false);
      var options = PublicKeyCredential.parseCreationOptionsFromJSON(answer.body.options);
      return navigator.credentials.create({ publicKey: options }).then(function (credential) {
        var body = { response: credential.toJSON() };
        if (name.trim() !== '') body.name = name;
        return call('POST', '/passkeys', body);
      }).then(function (result) {
        if (result.status !== 201) return say(problem(result), false);
        say('Passkey added: ' + result.body.passkey.name + '. Every other session of the account was signed out.', true);
        return refresh();
      });
    }).catch(function (error) {
      say('No passkey was added (' + (error && error.name ? error.name : 'error') + ').', false);
    });
  }

  document.getElementById('sign-in').addEventListener('click', signIn);
  document.getElementById('add-form').addEventListener('submit', add);
  refresh().catch(function () { say('The service could not be reached. Check the connection and try again.', false); });
})();
`;
