/**
 * The shape of a route of the table: what an operation declares (method, path, auth, limits, body,
 * documented answers) and what it runs. The documents, the path table and every host read routes
 * through these types; the routes themselves are in the files beside this one, one per resource.
 */
import type { Accounts, LimitedOperation, RateLimitStatus, parseRequest } from '@sl-accounts/service/core';
import type { ErrorCode } from '../errors.ts';
import type { OperationRequest } from '../operation-request.ts';

/** Names of the response body schemas (components of the OpenAPI document). */
export type ResponseSchemaName = 'UserResponse' | 'SessionsResponse' | 'Ok' | 'Health' | 'ErrorResponse' | 'SecondFactorChallenge' | 'SecondFactorLoginResponse' | 'TotpEnrolment' | 'RecoveryCodes' | 'PasskeysResponse' | 'PasskeyResponse' | 'PasskeyOptionsResponse' | 'PasskeyRegistrationOptionsResponse' | 'SignInProvidersResponse' | 'AuthorizationUrlResponse' | 'IdentitiesResponse' | 'ActivityResponse' | 'AccountExportResponse';

/** One documented response of a route. */
export interface DocumentedResponse {
  readonly description: string;
  readonly body: ResponseSchemaName;
  /** A body of that schema, as the operation answers it (the OpenAPI document shows it). */
  readonly example: unknown;
  /** Whether the answer sets a fresh session cookie or clears it. */
  readonly cookie?: 'set' | 'clear';
  /** Further headers of the answer, as OpenAPI header objects by name. */
  readonly headers?: Readonly<Record<string, unknown>>;
  /**
   * An ErrorResponse's every `code` this operation may answer with this status, beyond those its
   * traits imply (a session's `unauthenticated`, a changing operation's `cross_site`: see
   * `routeResponses` of the discovery package). The documents list them per operation, and a test
   * holds them to the codes calling the operation gives.
   */
  readonly codes?: readonly ErrorCode[];
}

/** What an operation produces when it succeeds; failures are thrown and mapped in one place. */
export interface OperationResult {
  readonly status: number;
  readonly body: unknown;
  readonly setCookie?: string | readonly string[];
  /** Further headers (a redirect's `Location`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The quota a limited operation's request left (the `RateLimit` headers). */
  readonly limits?: readonly RateLimitStatus[];
}

/** What every route says, whether or not it takes a body. */
interface RouteFields {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** The path; a segment `{name}` matches any one segment, which `request.param(name)` reads. */
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
  readonly tag: 'accounts' | 'contact' | 'system';
  /**
   * Whether the operation changes state (counts a limit, starts or ends a session, stores anything).
   * Such an operation refuses cross-site browser requests (403) and bodies a form could send (400)
   * before it does anything else (see cross-site.ts); every method but GET must say `true`.
   */
  readonly changesState: boolean;
  /** `session`: the operation needs the `sl_session` cookie. */
  readonly auth: 'public' | 'session';
  /**
   * For a public operation that a session's cookie changes (it keeps that session): why a client
   * should send the cookie along when it has one. The documents then show the cookie in the example
   * and say this, and OpenAPI marks the cookie optional.
   */
  readonly cookieAdvice?: string;
  /** The operation reads the `sl_login` cookie (a login's second step): the documents show it in the command. */
  readonly loginChallenge?: boolean;
  /** The per-client rate limit the operation counts against, if any. */
  readonly limited?: LimitedOperation;
  /** Further limits that may count a request after `limited` (their RateLimit policies follow its own). */
  readonly alsoLimited?: readonly string[];
  /**
   * Each `{name}` segment of `path`: what it holds and a value the documents show (OpenAPI's
   * parameter `example`, so tools that call every operation can fill it in). The OpenAPI document
   * refuses to build when a segment has no entry.
   */
  readonly pathParameters?: Readonly<Record<string, PathParameter>>;
  /** Optional query parameters (`?cursor=`): what each holds and a value the documents show. */
  readonly queryParameters?: Readonly<Record<string, PathParameter>>;
  /**
   * Success and the operation's own errors. The generic ones follow from the fields above: `auth:
   * 'session'` adds the session-ended 401 to the table's route (routes/index.ts: declare a 401 only
   * when the operation answers one of its own); a body adds 400, 413 and 415; a limit adds 429;
   * every operation may answer 500 and 503.
   */
  readonly responses: Readonly<Record<string, DocumentedResponse>>;
  readonly run: (accounts: Accounts, request: OperationRequest) => Promise<OperationResult>;
}

/** A `{name}` segment of a route's path. */
export interface PathParameter {
  readonly description: string;
  readonly example: string;
}

/** A zod schema of the core, as `parseRequest` takes it. */
export type RequestSchema = Parameters<typeof parseRequest>[0];

/**
 * An operation that takes a JSON body names the core schema that parses it, whose fields and bounds
 * every document lists, and a body of that schema the documents show as their example; one without
 * a body names neither.
 */
type RequestBodyFields =
  | { readonly requestBody: RequestSchema; readonly requestExample: unknown }
  | { readonly requestBody?: undefined; readonly requestExample?: undefined };

/** One operation of the API. */
export type ApiRoute = RouteFields & RequestBodyFields;
