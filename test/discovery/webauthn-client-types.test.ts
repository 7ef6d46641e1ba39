/**
 * A client generated from the OpenAPI document passes the passkey options to `@simplewebauthn/browser`
 * and sends back what it answers without a cast (issue 40, row 9): `openapi-typescript` turns the
 * document into types, and a small client module using them with `startRegistration` and
 * `startAuthentication` type-checks under the repository's settings (in memory; nothing is written).
 */
// @module-tag compiler
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ts } from '../support/typescript.ts';
import openapiTS, { astToString } from 'openapi-typescript';
import { expect, it } from 'vitest';
import { openApiDocument } from '@sl-accounts/service/discovery';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
// Under the repository, so `@simplewebauthn/browser` resolves as an app's import would.
const BASE = join(ROOT, 'test', 'discovery', '__generated__');

const CLIENT = `import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import type { components } from './api.ts';

type Schemas = components['schemas'];

/** Adding a passkey: the options as the document types them, straight to the browser library, its answer straight back. */
export async function addPasskey(answer: Schemas['PasskeyRegistrationOptionsResponse']): Promise<Schemas['PasskeyRegistrationRequest']> {
  const response = await startRegistration({ optionsJSON: answer.options });
  return { response, name: 'Laptop' };
}

/** Signing in (or a login's second step, or a step-up) alike. */
export async function signIn(answer: Schemas['PasskeyOptionsResponse']): Promise<Schemas['PasskeySignInRequest']> {
  const response = await startAuthentication({ optionsJSON: answer.options });
  return { response };
}
`;

it('types generated from the document pass WebAuthn options to @simplewebauthn/browser and take its answers, without a cast', { tags: ['compiler'], timeout: 60_000 }, async () => {
  const api = astToString(await openapiTS(openApiDocument('http://localhost', 'sl-accounts') as unknown as Parameters<typeof openapiTS>[0]));
  expect(api).toContain('PublicKeyCredentialCreationOptionsJSON');
  const files = new Map([
    [join(BASE, 'api.ts'), api],
    [join(BASE, 'client.ts'), CLIENT],
  ]);
  const config = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => void d })!;
  // The browser library's types name the DOM's.
  const options = { ...config.options, lib: [...(config.options.lib ?? []), 'lib.dom.d.ts'], noEmit: true };
  const host = ts.createCompilerHost(options);
  const { fileExists, readFile, getSourceFile, directoryExists } = host;
  host.fileExists = (name) => files.has(name) || fileExists.call(host, name);
  host.directoryExists = (name) => name === BASE || (directoryExists?.call(host, name) ?? ts.sys.directoryExists(name));
  host.readFile = (name) => files.get(name) ?? readFile.call(host, name);
  host.getSourceFile = (name, language, onError) => {
    const text = files.get(name);
    return text === undefined ? getSourceFile.call(host, name, language, onError) : ts.createSourceFile(name, text, language);
  };
  const program = ts.createProgram([join(BASE, 'client.ts')], options, host);
  const source = program.getSourceFile(join(BASE, 'client.ts'))!;
  const found = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map(
    (d) => `line ${source.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
  );
  expect(found).toEqual([]);
});
