/**
 * `components.schemas` of the OpenAPI document: the JSON Schemas of every request body the route
 * table names and of the response bodies beside this file, generated from their zod schemas. auth.md
 * and the skills list a body's fields from the same schemas, so a route added to the table brings
 * its fields everywhere with no other edit.
 */
import { z } from 'zod';
import { ANY_CHARACTER, NOT_WHITE_SPACE, WHITE_SPACE } from '@sl-accounts/service/core';
import { API_ROUTES, type ApiRoute } from '@sl-accounts/service/http';
import { ErrorResponse, Health, Ok, RecoveryCodes, SecondFactorChallenge, SecondFactorLoginResponse, Session, SessionsResponse, TotpEnrolment, User, UserResponse, Passkey, PasskeyOptionsResponse, PasskeyRegistrationOptionsResponse, PasskeyResponse, PasskeysResponse, SignInProvider, SignInProvidersResponse, AuthorizationUrlResponse, Identity, IdentitiesResponse, ActivityEvent, ActivityResponse, AccountExportResponse } from './response-schemas.ts';
import { describeBounds } from './wording.ts';
import { PasskeyCreationOptions, PasskeyRequestOptions } from './webauthn-schemas.ts';

/** A JSON Schema, as a plain object. */
export type JsonSchema = Record<string, unknown>;

const RESPONSE_SCHEMAS = { User, UserResponse, Session, SessionsResponse, Ok, ErrorResponse, Health, SecondFactorChallenge, SecondFactorLoginResponse, TotpEnrolment, RecoveryCodes, Passkey, PasskeysResponse, PasskeyResponse, PasskeyOptionsResponse, PasskeyRegistrationOptionsResponse, SignInProvider, SignInProvidersResponse, AuthorizationUrlResponse, Identity, IdentitiesResponse, ActivityEvent, ActivityResponse, AccountExportResponse,
  // Under WebAuthn's own names, so a generated client's types read as the browser libraries' do.
  PublicKeyCredentialCreationOptionsJSON: PasskeyCreationOptions,
  PublicKeyCredentialRequestOptionsJSON: PasskeyRequestOptions,
};

/**
 * The id of each request schema of the route table: its own `meta({ id })`, as the core's schemas
 * carry, else one made from the first operation that takes it (`changePassword` -> `ChangePasswordRequest`).
 */
const REQUEST_SCHEMA_IDS = new Map<unknown, string>();
for (const route of API_ROUTES) {
  if (!route.requestBody || REQUEST_SCHEMA_IDS.has(route.requestBody)) continue;
  const own = (route.requestBody.meta() as { id?: unknown } | undefined)?.id;
  REQUEST_SCHEMA_IDS.set(route.requestBody, typeof own === 'string' ? own : `${route.operationId[0]!.toUpperCase()}${route.operationId.slice(1)}Request`);
}

/** The component name of a route's request body schema; `undefined` for a route without a body. */
export function requestSchemaId(route: ApiRoute): string | undefined {
  return route.requestBody && REQUEST_SCHEMA_IDS.get(route.requestBody);
}

function generateComponentSchemas(): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  const ids = new Set<string>();
  const add = (schema: z.ZodType, id: string) => {
    if (ids.has(id)) throw new Error(`two schemas are named ${id} in the OpenAPI components`);
    ids.add(id);
    registry.add(schema, { id });
  };
  for (const route of API_ROUTES) if (route.requestBody && !registry.has(route.requestBody)) add(route.requestBody, requestSchemaId(route)!);
  for (const [id, schema] of Object.entries(RESPONSE_SCHEMAS)) add(schema, id);
  const { schemas } = z.toJSONSchema(registry, {
    io: 'output',
    target: 'draft-2020-12',
    uri: (id) => `#/components/schemas/${id}`,
    override: ({ zodSchema, jsonSchema }) => {
      // Output mode closes every object, but request bodies strip unknown keys rather than reject them.
      if (REQUEST_SCHEMA_IDS.has(zodSchema)) delete jsonSchema.additionalProperties;
      if (jsonSchema['x-trimmed'] === true) describeTrimmed(jsonSchema);
      // A loose object's `additionalProperties: {}` says what its absence says, but generators then type
      // an index signature, which no interface (a browser library's RegistrationResponseJSON) satisfies.
      const extra = jsonSchema.additionalProperties;
      if (typeof extra === 'object' && extra !== null && Object.keys(extra).length === 0) delete jsonSchema.additionalProperties;
    },
  });
  return Object.fromEntries(
    Object.entries(schemas).map(([id, { $schema: _schema, $id: _id, ...schema }]) => [id, schema as JsonSchema]),
  );
}

/**
 * Rewrites the output schema of a field the server trims (e-mail, name) into what a client may send:
 * the bounds apply to the trimmed value, so plain `minLength`/`maxLength`/`format` would refuse
 * `"  A@B.EXAMPLE "` (which the server takes) and accept `" A "` as a name (which it refuses). They
 * become one pattern that allows white space around a value within the bounds; the bounds stay
 * readable under `x-trimmed`. JavaScript's `\s` is exactly the set `String.prototype.trim` removes.
 */
function describeTrimmed(schema: JsonSchema): void {
  const { minLength, maxLength, format, pattern } = schema as { minLength?: number; maxLength?: number; format?: string; pattern?: string };
  // JavaScript's white space spelled out (Python's `\s` is another set), and a character beyond U+FFFF
  // counted once without the `u` flag too: every dialect reads the same bounds (see WHITE_SPACE).
  const [s, S] = [WHITE_SPACE, NOT_WHITE_SPACE];
  let core: string;
  if (pattern !== undefined) {
    // The e-mail pattern matches no white space, so the trimmed value is its one run of non-space.
    const inner = pattern.replace(/^\^/, '').replace(/\$$/, '');
    core = `${maxLength === undefined ? '' : `(?=${S}{1,${maxLength}}${s}*$)`}(?:${inner})`;
  } else {
    const min = minLength ?? 0;
    const alternatives: string[] = [];
    if (min <= 1 && (maxLength === undefined || maxLength >= 1)) alternatives.push(S);
    if (maxLength === undefined || maxLength >= 2) alternatives.push(`${S}${ANY_CHARACTER}{${Math.max(0, min - 2)},${maxLength === undefined ? '' : maxLength - 2}}${S}`);
    core = `(?:${alternatives.join('|')})${min === 0 ? '?' : ''}`;
  }
  const bounds = { ...(format ? { format } : {}), ...(minLength === undefined ? {} : { minLength }), ...(maxLength === undefined ? {} : { maxLength }) };
  for (const key of ['minLength', 'maxLength', 'format', 'pattern', 'x-trimmed']) delete schema[key];
  Object.assign(schema, {
    pattern: `^${s}*${core}${s}*$`,
    description: `Surrounding white space is trimmed first${format === 'email' ? ' and the address lower-cased' : ''}; the bounds apply to what remains: ${describeBounds(bounds)}.${
      format === 'email' ? ' An address that Unicode normalisation (NFKC) would rewrite is refused.' : ''
    }${schema.not ? ' What remains holds no control characters and no bidirectional embeddings, overrides or isolates, and, when not empty, a visible character (the pattern names the invisible characters up to U+FFFF; the service also refuses a name made only of invisible ones beyond).' : ''}`,
    'x-trimmed': bounds,
  });
}

/** `components.schemas`, generated once. */
export const COMPONENT_SCHEMAS: Readonly<Record<string, JsonSchema>> = generateComponentSchemas();

/** The JSON Schema of a route's request body, as the OpenAPI document publishes it; `undefined` without a body. */
export function requestBodySchema(route: ApiRoute): JsonSchema | undefined {
  const id = requestSchemaId(route);
  return id === undefined ? undefined : COMPONENT_SCHEMAS[id];
}
